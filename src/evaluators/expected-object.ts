import { renderContent } from '../suite/messages.js';
import { type Message } from '../suite/types.js';
import { parseJsonObject } from './field-accuracy.js';

/**
 * The ground truth of a structured answer, as AgentV finds it: the last expected assistant
 * message whose content is a JSON object (written as YAML structure or as JSON text).
 */
export function expectedObject(expected: readonly Message[]): Record<string, unknown> | null {
  for (let i = expected.length - 1; i >= 0; i--) {
    const m = expected[i]!;
    if (m.role !== 'assistant' || m.parts.length === 0) continue;
    const obj = parseJsonObject(renderContent(m.parts));
    if (obj) return obj;
  }
  return null;
}
