import { z } from 'zod';
import { excerpt } from '../core/diagnostics.js';
import { isRecord } from '../core/is-record.js';

/**
 * Judge answer schemas. Each mode has two forms:
 * - the wire schema, sent as the strict `json_schema` response format: every property required,
 *   optional ones nullable, ids constrained to exactly the asked ones;
 * - the validation, applied to every answer whatever the endpoint enforced: the right shape,
 *   integer scores in range, and exactly the asked ids (missing is invalid; unknown is dropped).
 */

export const idEnum = (ids: readonly string[]) => z.enum(ids as [string, ...string[]]);

function buildChecklistWireSchema(ids: readonly string[]) {
  return z.object({
    checks: z.array(z.object({ id: idEnum(ids), reasoning: z.string(), satisfied: z.boolean() })),
    overall_reasoning: z.string(),
  });
}

function buildScoreRangeWireSchema(ids: readonly string[]) {
  return z.object({
    checks: z.array(
      z.object({ id: idEnum(ids), reasoning: z.string().nullable(), score: z.number().int().min(0).max(10) }),
    ),
    overall_reasoning: z.string().nullable(),
  });
}

/**
 * Wire schemas are shared per list of ids: a suite of 10,000 cases with the same rubric ids
 * builds (and converts to JSON Schema) one schema, not 10,000.
 */
export function memoByIds<T>(build: (ids: readonly string[]) => T): (ids: readonly string[]) => T {
  const cache = new Map<string, T>();
  return (ids) => {
    const key = ids.join('\u0000');
    let v = cache.get(key);
    if (v === undefined) {
      if (cache.size >= 1000) cache.clear();
      v = build(ids);
      cache.set(key, v);
    }
    return v;
  };
}

export const checklistWireSchema = memoByIds(buildChecklistWireSchema);
export const scoreRangeWireSchema = memoByIds(buildScoreRangeWireSchema);

export const freeformWireSchema = z.object({
  reasoning: z.string().nullable(),
  hits: z.array(z.string()).nullable(),
  misses: z.array(z.string()).nullable(),
  score: z.number().min(0).max(1),
});

// Validation schemas: reasoning is welcome but its absence does not cost a repair call.
/** Reasoning or feedback: welcome, but an answer without it is not repaired for it. */
export const optionalText = z.string().nullish();
const ChecklistAnswer = z.object({
  checks: z.array(z.object({ id: z.coerce.string(), satisfied: z.boolean(), reasoning: optionalText })),
  overall_reasoning: optionalText,
});
const ScoreRangeAnswer = z.object({
  checks: z.array(
    z.object({
      id: z.coerce.string(),
      score: z
        .number()
        .int({ error: 'score must be an integer 0..10' })
        .min(0, { error: 'score must be >= 0' })
        .max(10, { error: 'score must be <= 10' }),
      reasoning: optionalText,
    }),
  ),
  overall_reasoning: optionalText,
});
/** AgentV's judge schema keeps at most this many hits and misses. */
const MAX_HITS = 4;
const upTo4 = z
  .array(z.string())
  .nullish()
  .transform((a) => a?.slice(0, MAX_HITS));
const FreeformAnswer = z.object({
  // Out of scale is invalid, never clamped: 7 on a 0..1 scale is a judge that misread it.
  score: z
    .number({ error: 'score must be a number between 0 and 1' })
    .min(0, { error: 'score must be between 0 and 1 (not rescaled)' })
    .max(1, { error: 'score must be between 0 and 1 (not rescaled)' }),
  hits: upTo4,
  misses: upTo4,
  reasoning: optionalText,
});

export type ChecklistAnswer = z.infer<typeof ChecklistAnswer>;
export type ScoreRangeAnswer = z.infer<typeof ScoreRangeAnswer>;
export type FreeformAnswer = z.infer<typeof FreeformAnswer>;

export type Validated<T> = { ok: true; value: T; warnings: string[] } | { ok: false; error: string };

/** A zod error as one line a judge can act on when re-asked (the first five issues). */
export function zodMessage(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.join('.') + ': ' : ''}${i.message}`)
    .join('; ');
}

function sameVerdict(a: object, b: object): boolean {
  const v = (x: object) => x as { satisfied?: unknown; score?: unknown };
  return v(a).satisfied === v(b).satisfied && v(a).score === v(b).score;
}

/**
 * Keeps exactly the asked ids: missing ones, and ones answered twice with different verdicts,
 * make the answer invalid; unknown ones and identical repeats are dropped with a warning.
 */
function exactIds<T extends { id: string }>(checks: T[], ids: readonly string[]): Validated<T[]> {
  const asked = new Set(ids);
  const byId = new Map<string, T>();
  const warnings: string[] = [];
  for (const c of checks) {
    if (!asked.has(c.id)) warnings.push(`judge answered unknown id '${excerpt(c.id)}'; dropped`);
    else if (byId.has(c.id)) {
      // Two verdicts for one id: the judge may be quoting one. Picking either is guessing.
      if (!sameVerdict(byId.get(c.id)!, c))
        return {
          ok: false,
          error: `id '${excerpt(c.id)}' is answered twice with different verdicts: answer every id exactly once`,
        };
      warnings.push(`judge answered id '${excerpt(c.id)}' twice, the same way; one answer is kept`);
    } else byId.set(c.id, c);
  }
  const missing = ids.filter((id) => !byId.has(id));
  if (missing.length > 0)
    return {
      ok: false,
      error: `missing checks for id${missing.length > 1 ? 's' : ''} ${missing.map((m) => `'${m}'`).join(', ')}: answer every id exactly once`,
    };
  // Each check keeps the rubric's own id string, not the copy parsed from the answer: results
  // hold one check per item per case, and the parsed copies would each stay alive with them.
  const value = ids.map((id) => {
    const check = byId.get(id)!;
    check.id = id;
    return check;
  });
  return { ok: true, value, warnings };
}

function validateWith<S extends z.ZodType>(schema: S, data: unknown): Validated<z.infer<S>> {
  const r = schema.safeParse(data);
  return r.success ? { ok: true, value: r.data, warnings: [] } : { ok: false, error: zodMessage(r.error) };
}

/** An answer of `schema` whose `checks` answer exactly the ids asked, each once, in their order. */
export function validateChecks<S extends z.ZodType<{ checks: { id: string }[] }>>(
  schema: S,
  data: unknown,
  ids: readonly string[],
): Validated<z.infer<S>> {
  const r = validateWith(schema, data);
  if (!r.ok) return r;
  const checks = exactIds(r.value.checks, ids);
  return checks.ok
    ? { ok: true, value: { ...r.value, checks: checks.value }, warnings: checks.warnings }
    : checks;
}

export function validateChecklist(data: unknown, ids: readonly string[]): Validated<ChecklistAnswer> {
  return validateChecks(ChecklistAnswer, data, ids);
}

/**
 * What an AgentV 5 judge states beside its `checks`, read as AgentV 5 reads it: an answer with
 * `pass` or `reason`, or with `checks` and no `overall_reasoning`, is a promptfoo grading result,
 * whose own `score` (else the checks') is the score and whose `pass` (else every check satisfied)
 * is the verdict. null when the answer is AgentV's rubric shape: its checks decide.
 */
export interface StatedVerdict {
  score: number | null;
  pass: boolean | null;
}

const Stated = z.object({
  // Out of scale is invalid, never clamped (AgentV clamps): 7 on a 0..1 scale is a misread scale.
  score: z
    .number({ error: 'score must be a number between 0 and 1' })
    .min(0, { error: 'score must be between 0 and 1 (not rescaled)' })
    .max(1, { error: 'score must be between 0 and 1 (not rescaled)' })
    .nullish(),
  pass: z.boolean({ error: 'pass must be true or false' }).nullish(),
  reason: optionalText,
});

/** promptfoo's check spelling (`pass` / `passed`, `reason`) read as ours, as AgentV 5 reads it. */
function promptfooChecks(data: unknown): unknown {
  if (!isRecord(data) || !Array.isArray(data.checks)) return data;
  const checks = data.checks.map((c: unknown) => {
    if (!isRecord(c)) return c;
    const said = c.satisfied ?? c.pass ?? c.passed;
    const why = c.reasoning ?? c.reason ?? c.evidence;
    return { ...c, satisfied: said, ...(why !== undefined ? { reasoning: why } : {}) };
  });
  return { ...data, checks };
}

/**
 * A checklist answer as AgentV 5 reads one: the checklist, and what the judge stated beside it
 * when the answer is promptfoo-shaped (`stated`; see StatedVerdict). Its `reason` is the overall
 * reasoning when there is none.
 */
export function validateStatedChecklist(
  data: unknown,
  ids: readonly string[],
): Validated<ChecklistAnswer & { stated: StatedVerdict | null }> {
  const normal = promptfooChecks(data);
  const checklist = validateChecklist(normal, ids);
  if (!checklist.ok) return checklist;
  const own = validateWith(Stated, normal);
  if (!own.ok) return own;
  const raw = normal as Record<string, unknown>;
  const promptfooShaped =
    'pass' in raw || 'reason' in raw || (!('overall_reasoning' in raw) && !('assertions' in raw));
  const value = {
    ...checklist.value,
    overall_reasoning: checklist.value.overall_reasoning ?? own.value.reason ?? null,
    stated: promptfooShaped ? { score: own.value.score ?? null, pass: own.value.pass ?? null } : null,
  };
  return { ok: true, value, warnings: checklist.warnings };
}

export function validateScoreRange(data: unknown, ids: readonly string[]): Validated<ScoreRangeAnswer> {
  return validateChecks(ScoreRangeAnswer, data, ids);
}

export function validateFreeform(data: unknown): Validated<FreeformAnswer> {
  return validateWith(FreeformAnswer, data);
}
