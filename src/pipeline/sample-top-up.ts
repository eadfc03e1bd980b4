import { type CaseResult, emptyUsage } from '../core/results.js';
import { type SpendMeter } from './budget.js';
import { type CaseTopUp } from './execute-case.js';
import { fitRunNoise } from '../evaluators/run-noise.js';

/**
 * Below this chance of a wrong verdict a case takes no sample from the leftover budget: the
 * call would buy next to nothing.
 */
const TOP_UP_FLOOR = 0.01;

export interface TopUpDeps {
  concurrency: number;
  signal: AbortSignal | undefined;
  spend: SpendMeter | null;
  info(message: string): void;
}

interface Open {
  at: number;
  label: string;
  topUp: CaseTopUp;
  doubt: number;
}

/** Higher doubt first, then plan order: the order cases are sampled in. */
const before = (a: Open, b: Open) => a.doubt > b.doubt || (a.doubt === b.doubt && a.at < b.at);

/**
 * `judge-samples: auto`, the run's part (README "Judge samples"). Each case first samples as its
 * own doubt asks, then offers itself here. The run fits its judge's noise to every offered case's
 * checklist votes (`evaluators/run-noise.ts`) and ranks the cases by how likely their verdict is
 * wrong under that fit; what is left of twice the first samples' calls is spent on the cases
 * whose verdict is still likeliest wrong, one sample at a time, most doubtful first
 * (ties in plan order), `concurrency` at a time, and never past that budget: a batch takes a case
 * only while the most its sample can cost (it, and the judge aggregators above it asked again)
 * fits what is left, and what it did cost is counted. Deterministic: which case is sampled
 * depends on the results, never on timing. A case below TOP_UP_FLOOR keeps only its call counts.
 */
export class SampleTopUps {
  private first = 0;
  private extra = 0;
  private offered: Omit<Open, 'doubt'>[] = [];
  private readonly heap: Open[] = [];

  offer(at: number, label: string, topUp: CaseTopUp): void {
    const { first, extra } = topUp.calls();
    this.first += first;
    this.extra += extra;
    this.offered.push({ at, label, topUp });
  }

  /**
   * Fits the run's noise model to every offered case's votes (in plan order, so the fit does not
   * depend on which case finished first) and ranks the open cases under it.
   */
  private rank(): void {
    const offered = this.offered.sort((a, b) => a.at - b.at);
    this.offered = [];
    const model = fitRunNoise(offered.flatMap((o) => o.topUp.votes()));
    for (const o of offered) {
      const doubt = o.topUp.doubt(model);
      if (doubt >= TOP_UP_FLOOR) this.push({ ...o, doubt });
    }
  }

  /**
   * Spends the leftover; returns the cases sampled again, by plan position, with their new
   * results. A sample that fails (the spend cap, the judge) leaves its case as decided, with
   * what the attempt cost added to its usage.
   */
  async run(
    decided: (at: number) => CaseResult | undefined,
    deps: TopUpDeps,
  ): Promise<Map<number, CaseResult>> {
    const out = new Map<number, CaseResult>();
    let left = this.first - this.extra;
    let spent = 0;
    if (left > 0) this.rank();
    while (left > 0 && this.heap.length > 0 && !deps.signal?.aborted && (!deps.spend || deps.spend.allow())) {
      const batch = this.batch(left, Math.max(1, deps.concurrency));
      if (batch.length === 0) break;
      const calls = (o: Open) => {
        const c = o.topUp.calls();
        return c.first + c.extra;
      };
      const was = batch.map(calls);
      // A leftover sample that throws (cancelled mid-call) is no reason to lose the run's results.
      const results = await Promise.all(batch.map((o) => o.topUp.more().catch(() => null)));
      batch.forEach((o, i) => {
        const cost = calls(o) - was[i]!;
        left -= cost;
        spent += cost;
        const r = results[i];
        if (!r) return;
        const old = out.get(o.at) ?? decided(o.at);
        if (r.verdict === 'error') {
          // Its evaluation holds every sample the case took, the failed one too: its usage is the case's.
          if (old) out.set(o.at, { ...old, usage: r.usage ?? old.usage ?? emptyUsage() });
          return;
        }
        if (old && old.verdict !== r.verdict)
          deps.info(
            `judge samples: ${o.label}: ${old.verdict} → ${r.verdict} after a sample from the run's leftover`,
          );
        out.set(o.at, r);
        const doubt = o.topUp.doubt();
        if (doubt >= TOP_UP_FLOOR) this.push({ ...o, doubt });
      });
    }
    if (spent > 0)
      deps.info(`judge samples: ${spent} more calls from the run's leftover budget, on ${out.size} cases`);
    return out;
  }

  /** The most doubtful open cases whose worst cost fits `left`, at most `n` of them. */
  private batch(left: number, n: number): Open[] {
    const out: Open[] = [];
    const skipped: Open[] = [];
    let room = left;
    while (out.length < n && this.heap.length > 0) {
      const o = this.pop();
      const worst = o.topUp.maxCost();
      if (worst <= room) {
        out.push(o);
        room -= worst;
      } else skipped.push(o);
    }
    for (const o of skipped) this.push(o);
    return out;
  }

  private push(o: Open): void {
    const h = this.heap;
    h.push(o);
    for (let i = h.length - 1; i > 0;) {
      const p = (i - 1) >> 1;
      if (!before(h[i]!, h[p]!)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }

  private pop(): Open {
    const h = this.heap;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && before(h[l]!, h[m]!)) m = l;
        if (r < h.length && before(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    return top;
  }
}
