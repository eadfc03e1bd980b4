import { type z } from 'zod';
import { type DiagnosticSink } from './diagnostics.js';
import { type PathSegment, type SourceDocument } from './yaml-source.js';

/** Rule names for structural problems, so messages read like the semantic ones. */
function ruleOf(issue: z.core.$ZodIssue, missing: boolean): string {
  if (missing) return 'required';
  // An evaluator `type` that names no known evaluator: a bad value, like an enum's.
  if (issue.code === 'invalid_union' && 'note' in issue && issue.note === 'No matching discriminator')
    return 'enum';
  switch (issue.code) {
    case 'invalid_type':
    case 'invalid_union':
      return 'type';
    case 'invalid_value':
      return 'enum';
    case 'too_small':
    case 'too_big':
      return 'size';
    default:
      return 'schema';
  }
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = root;
  for (const seg of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[seg];
  }
  return v;
}

/**
 * Reports zod issues as positioned diagnostics. `prefix` maps the parsed value's paths back into
 * the document (a case parsed on its own sits at `evalcases[i]` of the file).
 */
export function reportZodIssues(
  error: z.ZodError,
  value: unknown,
  doc: SourceDocument,
  sink: DiagnosticSink,
  prefix: readonly PathSegment[] = [],
  subject?: string,
): void {
  for (const issue of error.issues) {
    const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
    const missing =
      (issue.code === 'invalid_type' || issue.code === 'invalid_union') && valueAt(value, path) === undefined;
    const field = path.length > 0 ? String(path[path.length - 1]) : '';
    const fullPath = [...prefix, ...path];
    const pos = missing ? doc.locate(fullPath.slice(0, -1)) : doc.locate(fullPath);
    let message = issue.message;
    if (missing) message = `missing required field '${field}'`;
    else if (message.startsWith('Invalid input') && field) message = `${field}: ${message}`;
    sink.error(pos, ruleOf(issue, missing), message, subject);
  }
}
