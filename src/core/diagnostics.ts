/**
 * A problem found in a user's file, with the place and the rule it breaks. Every loader reports
 * through this one shape so the CLI, the action's annotations and the tests format them alike.
 */
type Severity = 'error' | 'warning';

export interface Diagnostic {
  severity: Severity;
  /** Path as the user would type it: relative to the working directory where possible. */
  file: string;
  /** 1-based; 0 when the problem concerns the whole file. */
  line: number;
  column: number;
  /** Short machine-readable rule name, e.g. `overlap`, `type`, `missing-file`. */
  rule: string;
  message: string;
  /** What the problem is about, e.g. `rubric 'factual_accuracy'` or `case 'x'`. */
  subject?: string;
}

export function formatDiagnostic(d: Diagnostic): string {
  return formatLine(d, true);
}

/** For a reader that already says it is a warning (the CLI's `warning:`, the runner's ::warning). */
export function formatWithoutLevel(d: Diagnostic): string {
  return formatLine(d, false);
}

function formatLine(d: Diagnostic, withLevel: boolean): string {
  const where = d.line > 0 ? `${d.file}:${d.line}:${d.column}` : d.file;
  const subject = d.subject ? ` ${d.subject}:` : '';
  const level = d.severity === 'warning' && withLevel ? ' warning:' : '';
  return `${where}${level}${subject} ${d.rule}: ${d.message}`;
}

/** Collects diagnostics for one file so callers need not repeat the file name. */
export class DiagnosticSink {
  readonly items: Diagnostic[] = [];
  constructor(readonly file: string) {}
  error(pos: Position, rule: string, message: string, subject?: string): void {
    this.items.push({ severity: 'error', file: this.file, ...pos, rule, message, subject });
  }
  warn(pos: Position, rule: string, message: string, subject?: string): void {
    this.items.push({ severity: 'warning', file: this.file, ...pos, rule, message, subject });
  }
  get hasErrors(): boolean {
    return this.items.some((d) => d.severity === 'error');
  }
}

export interface Position {
  line: number;
  column: number;
}

/** Longest user value echoed in a message; longer ones are cut with a marker saying how much. */
export const ECHO_LIMIT = 120;

/**
 * A user's value as a message quotes it: cut to `max` characters (never inside a surrogate pair)
 * with a marker naming what was left out, so a 50 KB line does not become a 50 KB warning.
 */
export function excerpt(value: string, max = ECHO_LIMIT): string {
  if (value.length <= max) return value;
  let end = max;
  const code = value.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${value.slice(0, end)}… (${value.length - end} more characters)`;
}
