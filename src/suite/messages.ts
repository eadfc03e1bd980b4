import { type ContentPart, type FileAttachment, type Message } from './types.js';

const GUIDELINE_PATTERNS = [/\.instructions\.md$/i, /\.prompt\.md$/i, /(^|\/)SKILL\.md$/];

export function isGuidelineFile(relPath: string): boolean {
  return GUIDELINE_PATTERNS.some((re) => re.test(relPath));
}

/** A file as the model sees it: a tagged block with its path. */
function renderFile(file: FileAttachment): string {
  return `<file path="${file.path}">\n${file.text.replace(/\n$/, '')}\n</file>`;
}

/** A message's content as one text: text parts as written, files as `<file>` blocks. */
export function renderContent(parts: readonly ContentPart[]): string {
  return parts.map((p) => (p.type === 'text' ? p.text : renderFile(p.file))).join('\n\n');
}

/** A role as AgentV's turn markers write it: `@[System]:`, `@[User]:`, `@[Assistant]:`. */
const roleLabel = (role: string) => role.charAt(0).toUpperCase() + role.slice(1);

/** Messages as a transcript, for prompts that show a whole conversation. */
function renderTranscript(messages: readonly Message[]): string {
  return messages.map((m) => `@[${roleLabel(m.role)}]:\n${renderContent(m.parts)}`).join('\n\n');
}

/**
 * The question, as AgentV's `{{question}}`: one turn renders as its content alone; a
 * conversation (an assistant or tool turn, or more than one turn with content, the system turn
 * included) renders every turn with its role marker, so the judge sees what the target saw.
 */
export function renderQuestion(messages: readonly Message[]): string {
  const visible = messages.filter((m) => renderContent(m.parts).trim() !== '');
  const conversation =
    messages.some((m) => m.role === 'assistant' || m.role === 'tool') || visible.length > 1;
  if (!conversation) return visible.length === 1 ? renderContent(visible[0]!.parts) : '';
  return renderTranscript(visible);
}

/**
 * The question as AgentV hands it to code judges (its case's `question`): the user turns' content
 * alone, without role markers. The judge's `{{question}}` above shows the whole conversation.
 */
export function renderUserQuestion(messages: readonly Message[]): string {
  return renderContent(messages.filter((m) => m.role === 'user').flatMap((m) => m.parts));
}

/**
 * The question as `generate rubrics` shows it to the judge: every turn's text, attached files by
 * name only (`<file path>`), so the prompt stays about what is asked rather than file contents.
 */
export function renderQuestionOutline(messages: readonly Message[]): string {
  return messages
    .map((m) => m.parts.map((p) => (p.type === 'text' ? p.text : `<file ${p.file.path}>`)).join('\n'))
    .join('\n\n');
}

/** The reference answer: the last expected assistant message (or the last expected message). */
export function renderReferenceAnswer(expected: readonly Message[]): string {
  const assistant =
    [...expected].reverse().find((m) => m.role === 'assistant') ?? expected[expected.length - 1];
  if (!assistant) return '';
  // A turn with only tool calls: its calls are the reference (AgentV).
  if (assistant.parts.length === 0 && assistant.toolCalls)
    return JSON.stringify(assistant.toolCalls, null, 2);
  return renderContent(assistant.parts);
}

/**
 * A message as AgentV hands it to code judges and `{{input_messages}}` / `{{expected_messages}}`:
 * structured content as written (not its JSON text), files and text parts as one text, and its
 * `tool_calls` when it has them.
 */
export function messageAsWritten(m: Message): Record<string, unknown> {
  const content = m.structured !== undefined ? m.structured : renderContent(m.parts);
  const bare = m.toolCalls !== undefined && m.parts.length === 0;
  return {
    role: m.role,
    ...(bare ? {} : { content }),
    ...(m.toolCalls !== undefined ? { tool_calls: m.toolCalls } : {}),
  };
}

export function filesOf(messages: readonly Message[]): FileAttachment[] {
  const out: FileAttachment[] = [];
  for (const m of messages) for (const p of m.parts) if (p.type === 'file') out.push(p.file);
  return out;
}

export function textMessage(role: string, text: string): Message {
  return { role, parts: [{ type: 'text', text }] };
}
