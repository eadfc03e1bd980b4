import path from 'node:path';
import { type ContentPart, type FileAttachment, type Message } from './types.js';

const GUIDELINE_PATTERNS = [/\.instructions\.md$/i, /\.prompt\.md$/i, /(^|\/)SKILL\.md$/];

export function isGuidelineFile(relPath: string): boolean {
  return GUIDELINE_PATTERNS.some((re) => re.test(relPath));
}

/** A file as the model sees it: a tagged block with its path. */
export function renderFile(file: FileAttachment): string {
  return `<file path="${file.path}">\n${file.text.replace(/\n$/, '')}\n</file>`;
}

/** A message's content as one text: text parts as written, files as `<file>` blocks. */
export function renderContent(parts: readonly ContentPart[]): string {
  return parts.map((p) => (p.type === 'text' ? p.text : renderFile(p.file))).join('\n\n');
}

/** Messages as a transcript, for prompts that show a whole conversation. */
export function renderTranscript(messages: readonly Message[]): string {
  return messages.map((m) => `@[${m.role}]:\n${renderContent(m.parts)}`).join('\n\n');
}

/**
 * The question, as AgentV's `{{question}}`: the user-side input. One user message renders as its
 * content alone; a conversation renders as a transcript so the judge sees the turns.
 */
export function renderQuestion(messages: readonly Message[]): string {
  const nonSystem = messages.filter((m) => m.role !== 'system');
  if (nonSystem.length === 1) return renderContent(nonSystem[0]!.parts);
  return renderTranscript(nonSystem);
}

/** The reference answer: the last expected assistant message (or the last expected message). */
export function renderReferenceAnswer(expected: readonly Message[]): string {
  const assistant =
    [...expected].reverse().find((m) => m.role === 'assistant') ?? expected[expected.length - 1];
  return assistant ? renderContent(assistant.parts) : '';
}

export function filesOf(messages: readonly Message[]): FileAttachment[] {
  const out: FileAttachment[] = [];
  for (const m of messages) for (const p of m.parts) if (p.type === 'file') out.push(p.file);
  return out;
}

export function textMessage(role: string, text: string): Message {
  return { role, parts: [{ type: 'text', text }] };
}

export function toPosix(p: string): string {
  return p.split(path.sep).join('/');
}
