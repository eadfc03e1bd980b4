import { z } from 'zod';
import { type CaseOutcome } from '../core/results.js';

/** The results major version this build writes and can compare with. */
const RESULTS_MAJOR = 1;

/** A results file larger than this is not a results file this project wrote (10,000 cases ≈ 30 MB). */
export const MAX_RESULTS_BYTES = 256 * 1024 * 1024;

/** What a comparison needs from a results file: the rest is not kept in memory. */
export interface BaselineResults {
  partial: boolean;
  /** The commit the file's run judged (its last history entry), when it says. */
  commit: string | null;
  /** What its definition hashes cover; null for a file written before the version was recorded. */
  definitionVersion: number | null;
  suites: {
    path: string;
    cases: {
      id: string;
      verdict: CaseOutcome;
      score: number;
      definition_hash?: string | null;
      repeats?: number | null;
      pass_rate?: number | null;
      advisory_only?: true;
      /** The base's answer, for a report that shows it beside the head's. */
      answer?: string | null;
    }[];
  }[];
}

const Schema = z.object({
  partial: z.boolean().optional(),
  suites: z.array(
    z.object({
      path: z.string(),
      cases: z.array(
        z.object({
          id: z.string(),
          verdict: z.enum(['pass', 'borderline', 'fail', 'error', 'skipped', 'inconclusive']),
          score: z.number().min(0).max(1),
          definition_hash: z.string().nullish(),
          repeats: z.number().int().min(1).max(1000).nullish(),
          pass_rate: z.number().min(0).max(1).nullish(),
          advisory_only: z.literal(true).optional(),
          answer: z.string().nullish(),
        }),
      ),
    }),
  ),
  history: z.array(z.object({ commit: z.string().nullish() })).optional(),
  definition_version: z.number().int().optional(),
});

/**
 * Reads a results file's text as a baseline. Never throws: a file that is not JSON, of another
 * major version or of the wrong shape gives a one-line reason naming `source`.
 */
export function parseBaselineResults(
  text: string,
  source: string,
): { results: BaselineResults } | { error: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { error: `${source} is not readable JSON (${(err as Error).message})` };
  }
  return checkBaselineResults(raw, source);
}

/** The same checks on an already parsed value (the CLI renders the head file it parsed). */
export function checkBaselineResults(
  raw: unknown,
  source: string,
): { results: BaselineResults } | { error: string } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return { error: `${source} is not a results file (expected a JSON object)` };
  const version = (raw as { version?: unknown }).version;
  const major =
    typeof version === 'number' || typeof version === 'string' ? Math.trunc(Number(version)) : NaN;
  if (major !== RESULTS_MAJOR)
    return {
      error: `${source} has results version ${JSON.stringify(version ?? null)}; this rubric-eval compares with version ${RESULTS_MAJOR} only`,
    };
  const parsed = Schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
    return {
      error: `${source} is not a valid results file: ${where.replace(/^\./, '') || '(root)'}: ${issue.message}`,
    };
  }
  const r = parsed.data;
  return {
    results: {
      partial: r.partial ?? false,
      commit: r.history?.at(-1)?.commit ?? null,
      definitionVersion: r.definition_version ?? null,
      suites: r.suites,
    },
  };
}
