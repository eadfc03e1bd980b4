import { emptyUsage, type EvaluatorResult } from '../core/results.js';
import { type Usage } from '../core/usage.js';
import { type Judge, JudgeError } from '../judge/judge.js';
import { type SimilarityConfig } from '../suite/types.js';
import { judgeErrorResult } from './llm-judge.js';

/**
 * promptfoo `similar`: the cosine of the answer's embedding and each expected value's (the
 * judge's endpoint, `embedding-model`). It passes when any value reaches `threshold` (default
 * 0.75), scored by that value's similarity (else by the closest one). `not-similar` passes only
 * when no value reaches it, scored 1 - similarity (its worst value when it fails, its closest when
 * it passes), as promptfoo scores it.
 */

/**
 * The cosine of two embeddings. Embeddings the endpoint sent that give no number (different
 * lengths; a NaN value, or values whose products overflow) are the judge's error, never a similarity:
 * `not-similar` would pass on NaN, which is below every threshold.
 */
export function cosine(a: readonly number[], b: readonly number[], usage: Usage = emptyUsage()): number {
  if (a.length !== b.length)
    throw new JudgeError(`embeddings of different lengths (${a.length}, ${b.length})`, usage);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  const c = na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
  if (!Number.isFinite(c)) throw new JudgeError(`the embeddings give no similarity (${c})`, usage);
  return c;
}

export interface SimilarityOutcome {
  pass: boolean;
  score: number;
  reason: string;
}

/** promptfoo's rule over the similarities of the answer to each value, in the order written. */
export function similarityOutcome(
  sims: readonly number[],
  threshold: number,
  inverse: boolean,
): SimilarityOutcome {
  const above = (s: number) => `Similarity ${s.toFixed(2)} is greater than threshold ${threshold}`;
  const below = (s: number) => `Similarity ${s.toFixed(2)} is less than threshold ${threshold}`;
  if (!inverse) {
    const hit = sims.find((s) => s >= threshold - Number.EPSILON);
    if (hit !== undefined) return { pass: true, score: hit, reason: above(hit) };
    const best = Math.max(...sims);
    return {
      pass: false,
      score: best,
      reason: sims.length > 1 ? 'None of the provided values met the similarity threshold' : below(best),
    };
  }
  const close = sims.find((s) => s > threshold + Number.EPSILON);
  if (close !== undefined) return { pass: false, score: 1 - close, reason: above(close) };
  const nearest = Math.max(...sims);
  return { pass: true, score: 1 - nearest, reason: below(nearest) };
}

/** A pass/fail check's result from its outcome: the score kept in 0..1, the reason as its hit or miss. */
export function outcomeResult(
  base: Pick<EvaluatorResult, 'name' | 'type' | 'weight'>,
  o: SimilarityOutcome,
  threshold: number,
  usage: EvaluatorResult['usage'],
): EvaluatorResult {
  return {
    ...base,
    score: Math.min(1, Math.max(0, o.score)),
    verdict: o.pass ? 'pass' : 'fail',
    threshold,
    reasoning: o.reason,
    hits: o.pass ? [o.reason] : [],
    misses: o.pass ? [] : [o.reason],
    gating_violations: [],
    usage,
  };
}

export async function runSimilarity(
  config: SimilarityConfig,
  answer: string,
  judge: Judge,
): Promise<EvaluatorResult> {
  const base = { name: config.name, type: 'similarity' as const, weight: config.weight };
  try {
    const { vectors, usage } = await judge.embed([answer, ...config.values]);
    const [out, ...expected] = vectors;
    const sims = expected.map((v) => cosine(out!, v, usage));
    return outcomeResult(
      base,
      similarityOutcome(sims, config.threshold, config.inverse),
      config.threshold,
      usage,
    );
  } catch (err) {
    return judgeErrorResult(base, err);
  }
}
