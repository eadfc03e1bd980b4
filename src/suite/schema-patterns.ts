import { boundedPatternProblem } from '../core/bounded-pattern.js';
import { type PathSegment } from '../core/yaml-source.js';

/** Keywords whose value is data, not a schema: a `pattern` key inside them is no pattern. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples', 'example']);

/**
 * The first `pattern` or `patternProperties` key of a JSON Schema that the linear-time engine
 * refuses (ajv compiles them as JSON Schema says, with the `u` flag), with where it is, so the
 * suite's error points at it at load time rather than the check erroring on every case.
 */
export function schemaPatternProblem(
  schema: unknown,
  at: PathSegment[] = [],
): { at: PathSegment[]; message: string } | null {
  if (Array.isArray(schema)) {
    for (const [i, item] of schema.entries()) {
      const found = schemaPatternProblem(item, [...at, i]);
      if (found) return found;
    }
    return null;
  }
  if (typeof schema !== 'object' || schema === null) return null;
  const node = schema as Record<string, unknown>;
  if (typeof node.pattern === 'string') {
    const message = boundedPatternProblem(node.pattern, 'u');
    if (message) return { at: [...at, 'pattern'], message: `JSON Schema pattern ${message}` };
  }
  const props = node.patternProperties;
  if (typeof props === 'object' && props !== null && !Array.isArray(props))
    for (const key of Object.keys(props)) {
      const message = boundedPatternProblem(key, 'u');
      if (message)
        return { at: [...at, 'patternProperties', key], message: `JSON Schema patternProperties ${message}` };
    }
  for (const [key, value] of Object.entries(node)) {
    if (DATA_KEYWORDS.has(key)) continue;
    const found = schemaPatternProblem(value, [...at, key]);
    if (found) return found;
  }
  return null;
}
