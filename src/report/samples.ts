import { type CaseResult, type CheckResult, type EvaluatorResult, type RunResults } from '../core/results.js';

/** Every evaluator of a list, composites' children included. */
function flatten(list: readonly EvaluatorResult[]): EvaluatorResult[] {
  return list.flatMap((e) => [e, ...flatten(e.children ?? [])]);
}

const scores = (xs: readonly number[]) =>
  xs.map((x) => (Number.isInteger(x) ? String(x) : x.toFixed(2))).join('·');

/** What the samples of one check said: `votes 2/3`, `samples 6·8·8`; empty without samples. */
export function checkSamples(k: CheckResult): string {
  if (k.votes) return `votes ${k.votes}`;
  if (k.sample_scores && k.sample_scores.length > 1) return `samples ${scores(k.sample_scores)}`;
  return '';
}

/**
 * `judge split 2/3` for a case whose samples split on a check that decides its verdict (the
 * first such check's votes, or the scores when they are scores); null for a stable case.
 */
export function judgeSplit(c: CaseResult): string | null {
  if (!c.unstable) return null;
  for (const e of flatten(c.evaluators)) {
    const k = (e.checks ?? []).find((x) => x.unstable);
    if (k?.votes) return `judge split ${k.votes}`;
    if (k?.sample_scores) return `judge split ${scores(k.sample_scores)}`;
    // A free-form or aggregator score that split (a composite is also marked for its children's splits).
    const own = e.sample_scores ?? [];
    if (e.unstable && !e.checks && own.some((x) => x !== own[0])) return `judge split ${scores(own)}`;
  }
  return 'judge split';
}

/** Samples taken beyond one per judged evaluator, and the cases the samples split, over the run. */
export function sampleCounts(results: RunResults): { extra: number; unstable: number } {
  let extra = 0;
  let unstable = 0;
  for (const s of results.suites)
    for (const c of s.cases) {
      if (c.unstable) unstable++;
      for (const e of flatten(c.evaluators)) extra += Math.max(0, (e.samples ?? 1) - 1);
    }
  return { extra, unstable };
}

/** `12 extra judge samples · 2 cases split`; empty when no sample was taken beyond the first. */
export function samplesNote(results: RunResults): string {
  const { extra, unstable } = sampleCounts(results);
  if (extra === 0 && unstable === 0) return '';
  const bits = [`${extra} extra judge sample${extra === 1 ? '' : 's'}`];
  if (unstable > 0) bits.push(`${unstable} case${unstable === 1 ? '' : 's'} split`);
  return bits.join(' · ');
}
