import { lowerMedian, parseVotes } from '../judge/sampling.js';
import { type CaseVerdict, type CheckResult, type EvaluatorResult } from '../core/results.js';
import { evaluatorVerdict, scoreChecklist, scoreRanges, verdictForScore } from '../rubric/scoring.js';
import { combineChildren, scoreCase } from './case-scoring.js';
import { type CaseScoring, type EvaluatorConfig } from '../suite/types.js';
import { DOUBT_THRESHOLD, type ItemVotes, type NoiseModel, verdictDoubt } from './verdict-posterior.js';

/**
 * Where judge samples can move a case's verdict. Every sampled number of a case is a "knob": a
 * checklist item (its votes as 1/0), a range criterion (0..10) or a free-form score (0..1), with
 * the values its samples gave. The case verdict can be recomputed with any knob set to another
 * value, from the results alone (the same scoring rules as the run), so doubt is a question the
 * results can answer without a call.
 */
export interface Knob {
  /** The evaluator's place in the case's tree (what samples are counted by). */
  path: string;
  /** `path#check-id`, or `path` for an evaluator's own score. */
  key: string;
  values: number[];
  /** The combined value the result holds. */
  combined: number;
  /** One step of the scale: a flipped item, one range point, a tenth of a free-form score. */
  step: number;
  max: number;
  /** Where it lives in the results, to mark it unstable. */
  target: CheckResult | EvaluatorResult;
}

type Override = ReadonlyMap<string, number>;

/** The knobs of a case's evaluator results (only sampled evaluators have any). */
export function collectKnobs(
  configs: readonly EvaluatorConfig[],
  results: readonly EvaluatorResult[],
): Knob[] {
  const out: Knob[] = [];
  walk(configs, results, 'e', (config, r, path) => {
    if (r.verdict === 'error' || r.samples === undefined) return;
    // An AgentV 5 checklist scored by what its judge stated carries that score's samples instead.
    const byChecks = (r.mode === 'checklist' && !r.sample_scores) || r.mode === 'score_range';
    if (config.type === 'llm_judge' && byChecks) {
      for (const c of r.checks ?? []) {
        const v = c.votes ? parseVotes(c.votes) : null;
        if (v)
          out.push({
            path,
            key: `${path}#${c.id}`,
            values: [...Array<number>(v.yes).fill(1), ...Array<number>(v.total - v.yes).fill(0)],
            combined: c.satisfied ? 1 : 0,
            step: 1,
            max: 1,
            target: c,
          });
        else if (c.sample_scores)
          out.push({
            path,
            key: `${path}#${c.id}`,
            values: c.sample_scores,
            combined: c.score ?? 0,
            step: 1,
            max: 10,
            target: c,
          });
      }
    } else if (r.sample_scores) {
      // A free-form or template judge, or a composite's llm_judge aggregator.
      const own = config.type === 'composite' ? `${path}/agg` : path;
      out.push({
        path: own,
        key: own,
        values: r.sample_scores,
        combined: r.score,
        step: 0.1,
        max: 1,
        target: r,
      });
    }
  });
  return out;
}

function walk(
  configs: readonly EvaluatorConfig[],
  results: readonly EvaluatorResult[],
  path: string,
  visit: (config: EvaluatorConfig, r: EvaluatorResult, path: string) => void,
): void {
  configs.forEach((config, i) => {
    const r = results[i];
    if (!r) return;
    const p = `${path}/${i}`;
    visit(config, r, p);
    if (config.type === 'composite' && r.children) walk(config.children, r.children, p, visit);
  });
}

/** The case verdict with some knobs set to other values: the run's scoring, replayed on the results. */
export function verdictWith(
  configs: readonly EvaluatorConfig[],
  results: readonly EvaluatorResult[],
  override: Override,
  scoring?: CaseScoring,
): CaseVerdict {
  return scoreCase({ evaluators: [...configs], scoring }, rescore(configs, results, 'e', override)).verdict;
}

function rescore(
  configs: readonly EvaluatorConfig[],
  results: readonly EvaluatorResult[],
  path: string,
  o: Override,
): EvaluatorResult[] {
  return results.map((r, i) => {
    const config = configs[i];
    const p = `${path}/${i}`;
    if (!config || r.verdict === 'error' || o.size === 0) return r;
    if (config.type === 'llm_judge') {
      const re = rescoreJudge(r, p, o);
      // A negated judge (AgentV 5 `negate`) counts 1 - its checks' score.
      return config.negate ? { ...re, score: 1 - re.score } : re;
    }
    if (config.type !== 'composite' || !r.children) return r;
    const children = rescore(config.children, r.children, p, o);
    if (children.some((c) => c.verdict === 'error')) return r;
    const gating = children.flatMap((c) => c.gating_violations.map((v) => `${c.name} › ${v}`));
    const agg = config.aggregator;
    let score = combineChildren(agg, children) ?? r.score;
    if (agg.type === 'llm_judge') score = o.get(`${p}/agg`) ?? r.score;
    // A scoring script that failed forced `fail` whatever its score: keep that.
    const forced = agg.type === 'code_judge' && r.verdict !== evaluatorVerdict(r.score, r.gating_violations);
    return {
      ...r,
      children,
      score,
      gating_violations: gating,
      verdict: forced ? r.verdict : evaluatorVerdict(score, gating),
    };
  });
}

function rescoreJudge(r: EvaluatorResult, path: string, o: Override): EvaluatorResult {
  if (r.mode === 'checklist' && r.checks && !r.sample_scores) {
    const answers = new Map(
      r.checks.map((c) => [
        c.id,
        { satisfied: (o.get(`${path}#${c.id}`) ?? (c.satisfied ? 1 : 0)) >= 0.5, reasoning: null },
      ]),
    );
    const items = r.checks.map((c) => ({ id: c.id, outcome: '', weight: c.weight, required: c.required }));
    return { ...r, ...scoreChecklist(items, answers) };
  }
  if (r.mode === 'score_range' && r.checks) {
    const answers = new Map(
      r.checks.map((c) => [c.id, { score: o.get(`${path}#${c.id}`) ?? c.score ?? 0, reasoning: null }]),
    );
    const items = r.checks.map((c) => ({
      id: c.id,
      outcome: '',
      weight: c.weight,
      requiredMinScore: c.required_min_score ?? null,
      bands: [],
    }));
    return { ...r, ...scoreRanges(items, answers) };
  }
  const score = o.get(path);
  return score === undefined ? r : { ...r, score, verdict: verdictForScore(score) };
}

/**
 * Whether a knob's samples have settled: they agree (two or more of them), or from three on a
 * strict majority of them gives the combined value (the majority of three). Otherwise the range
 * its samples span is still open.
 */
export function openRange(k: Knob): [number, number] | null {
  const n = k.values.length;
  if (n < 2) return null;
  const lo = Math.min(...k.values);
  const hi = Math.max(...k.values);
  if (lo === hi) return null;
  const median = lowerMedian(k.values);
  if (n >= 3 && k.values.filter((v) => v === median).length * 2 > n) return null;
  return [lo, hi];
}

/** Would moving this one knob by one step, either way, change the case verdict? */
function oneStepDecides(
  configs: readonly EvaluatorConfig[],
  results: readonly EvaluatorResult[],
  k: Knob,
  base: CaseVerdict,
  scoring?: CaseScoring,
): boolean {
  return [k.combined - k.step, k.combined + k.step]
    .map((v) => Math.min(k.max, Math.max(0, v)))
    .some((v) => v !== k.combined && verdictWith(configs, results, new Map([[k.key, v]]), scoring) !== base);
}

/** Every open knob at both ends of its range: the verdict is monotone in each, so two replays tell. */
function openSpanDecides(
  configs: readonly EvaluatorConfig[],
  results: readonly EvaluatorResult[],
  knobs: readonly Knob[],
  scoring?: CaseScoring,
): boolean {
  const open = knobs
    .map((k) => [k, openRange(k)] as const)
    .filter((x): x is readonly [Knob, [number, number]] => x[1] !== null);
  if (open.length === 0) return false;
  const low = new Map(open.map(([k, r]) => [k.key, r[0]]));
  const high = new Map(open.map(([k, r]) => [k.key, r[1]]));
  return verdictWith(configs, results, low, scoring) !== verdictWith(configs, results, high, scoring);
}

/**
 * A checklist evaluator's items as votes (null when it has other knobs: a range criterion or a
 * score), for the posterior doubt of `verdict-posterior.ts`.
 */
function checklistVotes(list: readonly Knob[]): ItemVotes[] | null {
  const out: ItemVotes[] = [];
  for (const k of list) {
    if (k.max !== 1 || k.step !== 1 || !('id' in k.target)) return null;
    const yes = k.values.filter((v) => v === 1).length;
    out.push({
      key: k.key,
      yes,
      total: k.values.length,
      weight: k.target.weight,
      required: k.target.required,
    });
  }
  return out;
}

/** Is this one evaluator (its knobs `list`) in doubt? */
function evaluatorInDoubt(
  configs: readonly EvaluatorConfig[],
  results: readonly EvaluatorResult[],
  list: readonly Knob[],
  base: CaseVerdict,
  scoring?: CaseScoring,
): boolean {
  const votes = checklistVotes(list);
  if (votes)
    return verdictDoubt(votes, base, (o) => verdictWith(configs, results, o, scoring)) > DOUBT_THRESHOLD;
  return list[0]!.values.length === 1
    ? list.some((k) => oneStepDecides(configs, results, k, base, scoring))
    : openSpanDecides(configs, results, list, scoring);
}

/**
 * The `auto` rule: which evaluators (paths) take one more sample. A checklist evaluator is in
 * doubt when the chance that its votes so far give the wrong case verdict is above one in ten
 * (`verdict-posterior.ts`: a judge that slips now and then, how often learnt from the case's own
 * votes). Any other evaluator with one sample is in doubt when one of its checks moving by one
 * step would change the case verdict; with more, when its open checks (samples disagreeing, no
 * majority of three yet) span a change of the case verdict. When no evaluator alone is in doubt
 * but their open checks together are, all of those take one more. Empty: stop.
 *
 * `checklistMax`: the most samples a checklist judge takes by its case's doubt alone, when the
 * run spends the rest where its fit of the judge's noise says (`pipeline/sample-top-up.ts`).
 */
export function autoWanted(
  configs: readonly EvaluatorConfig[],
  results: readonly EvaluatorResult[],
  max: number,
  scoring?: CaseScoring,
  checklistMax = max,
): string[] {
  const knobs = collectKnobs(configs, results);
  const base = verdictWith(configs, results, new Map(), scoring);
  const byPath = knobsByPath(configs, results);
  const room = (list: readonly Knob[]) =>
    list[0]!.values.length < (checklistVotes(list) ? Math.min(max, checklistMax) : max);
  const wanted: string[] = [];
  for (const [path, list] of byPath) {
    if (!room(list)) continue;
    if (evaluatorInDoubt(configs, results, list, base, scoring)) wanted.push(path);
  }
  if (wanted.length > 0 || !openSpanDecides(configs, results, knobs, scoring)) return wanted;
  return [...byPath].filter(([, list]) => room(list) && list.some((k) => openRange(k))).map(([p]) => p);
}

/** The knobs of a case's sampled evaluators, by evaluator path. */
function knobsByPath(configs: readonly EvaluatorConfig[], results: readonly EvaluatorResult[]) {
  const byPath = new Map<string, Knob[]>();
  for (const k of collectKnobs(configs, results)) byPath.set(k.path, [...(byPath.get(k.path) ?? []), k]);
  return byPath;
}

/** Every checklist judge's votes of a case: what a run fits its judge's noise to (`run-noise.ts`). */
export function checklistVoteSets(
  configs: readonly EvaluatorConfig[],
  results: readonly EvaluatorResult[],
): ItemVotes[][] {
  return [...knobsByPath(configs, results).values()]
    .map(checklistVotes)
    .filter((v): v is ItemVotes[] => v !== null);
}

/**
 * The checklist judge of a case whose votes are likeliest to give the wrong case verdict, and
 * that chance (`verdict-posterior.ts`, under `model`: the prior, or the run's fit of it); null
 * when no checklist judge can take another sample. What a run's leftover samples are spent on,
 * most doubtful first (`pipeline/sample-top-up.ts`).
 */
export function mostDoubtful(
  configs: readonly EvaluatorConfig[],
  results: readonly EvaluatorResult[],
  max: number,
  scoring?: CaseScoring,
  model?: NoiseModel,
): { path: string; doubt: number } | null {
  const base = verdictWith(configs, results, new Map(), scoring);
  let best: { path: string; doubt: number } | null = null;
  for (const [path, list] of knobsByPath(configs, results)) {
    const votes = list[0]!.values.length < max ? checklistVotes(list) : null;
    if (!votes) continue;
    const doubt = verdictDoubt(votes, base, (o) => verdictWith(configs, results, o, scoring), model);
    if (!best || doubt > best.doubt) best = { path, doubt };
  }
  return best;
}

/**
 * Marks what the samples disagreed on where it decides the verdict: a knob whose samples differ
 * and whose lowest or highest sample alone would give another case verdict. Returns whether any
 * did (the case is `unstable`).
 */
export function markUnstable(
  configs: readonly EvaluatorConfig[],
  results: readonly EvaluatorResult[],
  scoring?: CaseScoring,
): boolean {
  const base = verdictWith(configs, results, new Map(), scoring);
  let any = false;
  const unstablePaths = new Set<string>();
  for (const k of collectKnobs(configs, results)) {
    const lo = Math.min(...k.values);
    const hi = Math.max(...k.values);
    if (lo === hi) continue;
    if ([lo, hi].some((v) => verdictWith(configs, results, new Map([[k.key, v]]), scoring) !== base)) {
      k.target.unstable = true;
      unstablePaths.add(k.path);
      any = true;
    }
  }
  // The evaluator holding an unstable check is marked too, and so are the composites above it.
  walk(configs, results, 'e', (_c, r, path) => {
    if ([...unstablePaths].some((p) => p === path || p.startsWith(`${path}/`))) r.unstable = true;
  });
  return any;
}
