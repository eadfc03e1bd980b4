import { RubricEvalError } from '../core/errors.js';
import { isRecord } from '../core/is-record.js';

/** What a CLI target wrote, as AgentV's CLI provider reads it (single JSON or JSONL batch records). */
export interface CliAnswer {
  text: string;
  outputMessages: unknown[] | null;
  promptTokens: number | null;
  completionTokens: number | null;
  cachedTokens: number | null;
  costUsd: number | null;
  /** The `duration_ms` the target reported; the caller falls back to the measured time. */
  durationMs: number | null;
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
/** AgentV discards a negative cost or duration rather than trusting it. */
const nonNegative = (v: unknown) => {
  const n = num(v);
  return n !== null && n >= 0 ? n : null;
};

/** The last assistant message's content as text (objects as JSON), as AgentV picks the candidate. */
function lastAssistantContent(messages: readonly unknown[]): string | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (isRecord(m) && m.role === 'assistant' && m.content !== undefined && m.content !== null)
      return typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
  }
  return null;
}

function metrics(data: Record<string, unknown>): Omit<CliAnswer, 'text' | 'outputMessages'> {
  const usage = isRecord(data.token_usage) ? data.token_usage : {};
  return {
    promptTokens: num(usage.input ?? usage.prompt_tokens ?? usage.input_tokens),
    completionTokens: num(usage.output ?? usage.completion_tokens ?? usage.output_tokens),
    cachedTokens: num(usage.cached),
    costUsd: nonNegative(data.cost_usd),
    durationMs: nonNegative(data.duration_ms),
  };
}

/** One JSON object with `output_messages` and/or `text`, or null when it is neither. */
function answerFromRecord(data: Record<string, unknown>): CliAnswer | null {
  const messages =
    Array.isArray(data.output_messages) && data.output_messages.length > 0 ? data.output_messages : null;
  if (!messages && data.text === undefined) return null;
  const text =
    (messages ? lastAssistantContent(messages) : null) ??
    (typeof data.text === 'string' ? data.text : data.text === undefined ? '' : JSON.stringify(data.text));
  return { text, outputMessages: messages, ...metrics(data) };
}

/** What a CLI target wrote: JSON `{text}` / `{output_messages}` with optional metrics, else plain text. */
export function parseCliOutput(raw: string): CliAnswer {
  try {
    const data: unknown = JSON.parse(raw.trim());
    if (isRecord(data)) {
      const answer = answerFromRecord(data);
      if (answer) return answer;
    }
  } catch {
    /* not JSON: the text is the answer */
  }
  return {
    text: raw.replace(/\n$/, ''),
    outputMessages: null,
    promptTokens: null,
    completionTokens: null,
    cachedTokens: null,
    costUsd: null,
    durationMs: null,
  };
}

/**
 * A batch run's JSONL output: one `{id, text?|output_messages?, ...}` per line. A line that is
 * not such an object, or an id given twice, fails the whole batch (AgentV does the same).
 */
export function parseBatchOutput(raw: string): Map<string, CliAnswer> {
  const records = new Map<string, CliAnswer>();
  raw.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    let data: unknown;
    try {
      data = JSON.parse(line);
    } catch (err) {
      throw new RubricEvalError(`batch output line ${i + 1} is not JSON: ${(err as Error).message}`);
    }
    if (!isRecord(data)) throw new RubricEvalError(`batch output line ${i + 1} must be a JSON object`);
    if (typeof data.id !== 'string' || data.id === '')
      throw new RubricEvalError(`batch output line ${i + 1} has no string \`id\``);
    if (records.has(data.id)) throw new RubricEvalError(`batch output contains id '${data.id}' twice`);
    records.set(data.id, answerFromRecord(data) ?? { text: '', outputMessages: null, ...metrics(data) });
  });
  return records;
}
