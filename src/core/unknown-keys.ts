import { type DiagnosticSink, excerpt, type Position } from './diagnostics.js';
import { didYouMean, nearest } from './did-you-mean.js';

export interface KeyCheck {
  sink: DiagnosticSink;
  /** Position of a key of the object, by name. */
  locateKey(key: string): Position;
  subject?: string;
  /**
   * Unknown keys are legitimate here (a code judge's are its config): only a near miss of a known
   * key is reported, and a short key's near miss only as a warning, since `paths` may be meant.
   */
  open?: { what: string };
}

/**
 * Reports the keys of one object that its kind does not know. A key within a typo's distance of a
 * known one is an error (`required_min_scroe` silently loosening a gate is worse than a stopped
 * run); any other unknown key is a warning that it is ignored.
 */
export function checkUnknownKeys(
  obj: Record<string, unknown>,
  known: ReadonlySet<string>,
  c: KeyCheck,
): void {
  for (const key of Object.keys(obj)) {
    if (known.has(key)) continue;
    const pos = c.locateKey(key);
    const typo = didYouMean(key, known);
    if (c.open) {
      const near = typo ?? nearest(key, known);
      if (!near) continue;
      const message = `'${excerpt(key)}' is passed to the ${c.open.what} as config; did you mean '${near}'?`;
      if (typo && typo.length > 4) c.sink.error(pos, 'unknown-key', message, c.subject);
      else c.sink.warn(pos, 'unknown-key', message, c.subject);
    } else if (typo) {
      c.sink.error(pos, 'unknown-key', `unknown field '${excerpt(key)}': did you mean '${typo}'?`, c.subject);
    } else {
      c.sink.warn(pos, 'unknown-key', `unknown field '${excerpt(key)}' is ignored`, c.subject);
    }
  }
}
