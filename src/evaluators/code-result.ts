import { isRecord } from '../core/is-record.js';
/**
 * What a promptfoo `javascript` / `python` assertion's return value means, as promptfoo reads it:
 * `true`/`false` pass or fail (score 1 or 0); a number is the score and passes above 0, or at its
 * `threshold` when it has one; a grading result `{pass, score, reason}` says both. `not-` swaps
 * pass and fail but keeps the code's score. Python may also return `"true"`, a JSON object text
 * or a number as text, with snake_case keys, and its result object fails below `threshold`.
 */

export interface Graded {
  pass: boolean;
  score: number;
  reason: string;
}

const LABEL = { javascript: 'Custom function', python: 'Python code' } as const;

export function gradeScriptValue(
  value: unknown,
  language: 'javascript' | 'python',
  inverse: boolean,
  threshold: number | null,
): Graded {
  const v = language === 'python' ? pythonValue(value) : value;
  const label = LABEL[language];
  if (typeof v === 'boolean') {
    const pass = v !== inverse;
    return { pass, score: pass ? 1 : 0, reason: pass ? 'Assertion passed' : `${label} returned ${v}` };
  }
  if (typeof v === 'number' && Number.isFinite(v)) {
    const rawPass = threshold === null ? v > 0 : v >= threshold;
    const pass = rawPass !== inverse;
    return { pass, score: v, reason: pass ? 'Assertion passed' : `${label} returned ${rawPass}` };
  }
  const result = isRecord(v) ? gradingResult(v, language) : null;
  if (!result)
    return {
      pass: false,
      score: 0,
      reason: `${label} must return a boolean, a finite number or a grading result {pass, score, reason}; it returned ${describe(v)}`,
    };
  if (language === 'python' && threshold !== null && result.score < threshold) {
    const why = `Python score ${result.score} is less than threshold ${threshold}`;
    result.pass = false;
    result.reason = result.reason ? `${why}: ${result.reason}` : why;
  }
  const pass = result.pass !== inverse;
  const reason = !inverse
    ? result.reason
    : pass
      ? 'Assertion passed'
      : result.reason || `${label} returned ${result.pass}`;
  return { pass, score: result.score, reason };
}

/** A grading result object: `pass` a boolean; `score` a finite number (else 1 or 0 by pass). */
function gradingResult(v: Record<string, unknown>, language: 'javascript' | 'python'): Graded | null {
  const pass = v.pass ?? (language === 'python' ? v.pass_ : undefined);
  if (typeof pass !== 'boolean') return null;
  if (v.score !== undefined && (typeof v.score !== 'number' || !Number.isFinite(v.score))) return null;
  return {
    pass,
    score: typeof v.score === 'number' ? v.score : pass ? 1 : 0,
    reason: typeof v.reason === 'string' ? v.reason : '',
  };
}

/** Python's looser returns: booleans, JSON objects and numbers as text. */
function pythonValue(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const lower = v.trim().toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  if (v.trim().startsWith('{')) {
    try {
      return JSON.parse(v) as unknown;
    } catch {
      return v;
    }
  }
  const n = Number.parseFloat(v);
  return Number.isNaN(n) ? v : n;
}

function describe(v: unknown): string {
  if (v === null || v === undefined) return 'nothing';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 60 ? `${v.slice(0, 60)}…` : v)}`;
  if (Array.isArray(v)) return 'a list';
  return typeof v === 'object' ? 'an object without a boolean `pass`' : `a ${typeof v}`;
}
