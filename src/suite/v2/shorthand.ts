import { type PathSegment } from '../../core/yaml-source.js';
import { isRecord } from '../../core/is-record.js';

/**
 * AgentV v2.6.1's shorthand expansion: how a case's `input` / `expected_output` (and their
 * canonical keys) are read. Pure: the loader reports positions and resolves file parts.
 */

/** Alias → its canonical key. When both are given, AgentV reads the canonical one. */
const CANONICAL_OF: Readonly<Record<string, string>> = {
  input: 'input_messages',
  expected_output: 'expected_messages',
  outcome: 'expected_outcome',
  criteria: 'expected_outcome',
};

export interface ShadowedAlias {
  alias: string;
  canonical: string;
}

/**
 * The case without the aliases its canonical keys shadow, and which ones were dropped. The
 * dropped alias is not validated either: AgentV never reads it, so its shape cannot matter.
 */
export function dropShadowedAliases(raw: Record<string, unknown>): {
  value: Record<string, unknown>;
  shadowed: ShadowedAlias[];
} {
  const shadowed: ShadowedAlias[] = [];
  const value = { ...raw };
  for (const [alias, canonical] of Object.entries(CANONICAL_OF)) {
    if (raw[alias] !== undefined && raw[canonical] !== undefined) {
      shadowed.push({ alias, canonical });
      delete value[alias];
    }
  }
  return { value, shadowed };
}

/** One message as written, and where it sits relative to the key that holds it. */
interface WrittenMessage {
  value: Record<string, unknown>;
  at: PathSegment[];
}

/**
 * What a messages key holds, once the shorthands are expanded:
 * - `text`: a string, one message of the key's default role;
 * - `messages`: a list of `{role, ...}` messages (or, for `expected_output`, one such object);
 * - `structured`: `expected_output` given as an object or as a list whose items are not messages,
 *   one assistant message whose content is that value as written.
 */
export type MessagesShape =
  | { kind: 'text'; text: string }
  | { kind: 'messages'; items: WrittenMessage[] }
  | { kind: 'structured'; content: unknown };

/** Reads a value the schema has already accepted for `key`. */
export function messagesShape(key: string, value: unknown): MessagesShape {
  if (typeof value === 'string') return { kind: 'text', text: value };
  const expectedAlias = key === 'expected_output';
  if (Array.isArray(value)) {
    // AgentV looks at the first item only: a message there makes the whole list messages.
    const first: unknown = value[0];
    if (!expectedAlias || (isRecord(first) && 'role' in first)) {
      return {
        kind: 'messages',
        items: value.map((m, i) => ({ value: m as Record<string, unknown>, at: [i] })),
      };
    }
    return { kind: 'structured', content: value };
  }
  if (expectedAlias && isRecord(value) && 'role' in value)
    return { kind: 'messages', items: [{ value, at: [] }] };
  return { kind: 'structured', content: value };
}
