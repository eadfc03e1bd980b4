import { type CaseResult } from '../core/results.js';
import { type SpendMeter } from './budget.js';
import { type CaseTopUp } from './execute-case.js';

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

/**
 * `judge-samples: auto`, the run's part (README "Judge samples"). Each case first samples as its
 * own doubt asks; what is left of twice the first samples' calls is then spent on the cases whose
 * verdict is still likeliest wrong, one sample at a time, most doubtful first (ties in plan
 * order), `concurrency` at a time. A run where the cases already spent their share takes none.
 * Deterministic: which case is sampled depends on the results, never on timing. Returns the
 * cases sampled again, by plan position, with their new results.
 */
export async function topUpSamples(
  offers: readonly (CaseTopUp | undefined)[],
  deps: TopUpDeps,
): Promise<Map<number, CaseResult>> {
  const out = new Map<number, CaseResult>();
  let left = 0;
  for (const o of offers) {
    if (!o) continue;
    const { first, extra } = o.calls();
    left += first - extra;
  }
  const open = new Set(offers.flatMap((o, at) => (o ? [at] : [])));
  let spent = 0;
  let cases = 0;
  while (left > 0 && !deps.signal?.aborted && (!deps.spend || deps.spend.allow())) {
    const batch = mostDoubtful(offers, open, Math.min(left, Math.max(1, deps.concurrency)));
    if (batch.length === 0) break;
    const results = await Promise.all(batch.map((at) => offers[at]!.more()));
    batch.forEach((at, i) => {
      const r = results[i]!;
      // A sample from the leftover budget that fails (the spend cap, the judge) leaves the case
      // as it was decided: it was never owed that sample.
      if (r.verdict === 'error') return void open.delete(at);
      if (!out.has(at)) cases++;
      out.set(at, r);
    });
    left -= batch.length;
    spent += batch.length;
  }
  if (spent > 0)
    deps.info(`judge samples: ${spent} more from the run's leftover budget, on ${cases} doubtful cases`);
  return out;
}

/** Up to `n` open cases by doubt (highest first, then plan order); cases below the floor close. */
function mostDoubtful(offers: readonly (CaseTopUp | undefined)[], open: Set<number>, n: number): number[] {
  const ranked: [number, number][] = [];
  for (const at of open) {
    const d = offers[at]!.doubt();
    if (d < TOP_UP_FLOOR) open.delete(at);
    else ranked.push([d, at]);
  }
  ranked.sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  return ranked.slice(0, n).map(([, at]) => at);
}
