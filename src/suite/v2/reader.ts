import path from 'node:path';
import { DiagnosticSink, excerpt } from '../../core/diagnostics.js';
import { parseGitHubBlobUrl } from '../github-url.js';
import { isGuidelineFile, textMessage } from '../messages.js';
import { KNOWN_MESSAGE_KEYS, KNOWN_PART_KEYS, MessageSchema, type RawMessage } from './schema.js';
import { messagesShape } from './shorthand.js';
import { checkUnknownKeys } from '../../core/unknown-keys.js';
import {
  type ContentPart,
  type FileAttachment,
  type Message,
  type PromptScript,
  type PromptTemplate,
} from '../types.js';
import { readReferencedFile } from '../../core/user-file.js';
import { type Workspace } from '../../core/workspace.js';
import { type SuiteLoadOptions } from '../types.js';
import { type PathSegment, type SourceDocument } from '../../core/yaml-source.js';
import { reportZodIssues } from '../../core/zod-diagnostics.js';
import { isRecord } from '../../core/is-record.js';

/**
 * The v2 loader's reading of one file: its messages (text, file parts, GitHub file URLs), the
 * files and scripts it names, and its unknown keys. The AgentV 5 loader borrows the message
 * reading (`loadMessages`).
 */
export class V2Reader {
  protected readonly dir: string;
  constructor(
    protected readonly absPath: string,
    protected readonly display: string,
    protected readonly doc: SourceDocument,
    protected readonly sink: DiagnosticSink,
    protected readonly ws: Workspace,
    protected readonly options: SuiteLoadOptions = {},
  ) {
    this.dir = path.dirname(absPath);
  }

  /** Messages for another format's loader: an expected output read as `expected_output`, else as `input`. */
  loadMessages(value: unknown, at: PathSegment[], defaultRole: string, subject: string): Message[] {
    return this.readMessages(
      defaultRole === 'assistant' ? 'expected_output' : 'input',
      value,
      at,
      defaultRole,
      subject,
    );
  }

  protected readMessages(
    key: string,
    value: unknown,
    at: PathSegment[],
    defaultRole: string,
    subject: string,
  ): Message[] {
    const shape = messagesShape(key, value);
    if (shape.kind === 'text') return [textMessage(defaultRole, shape.text)];
    if (shape.kind === 'structured') {
      return [
        { ...textMessage(defaultRole, JSON.stringify(shape.content, null, 2)), structured: shape.content },
      ];
    }
    const out: Message[] = [];
    for (const item of shape.items) {
      const where = [...at, ...item.at];
      // `expected_output` lists pass the schema as any list: their messages are checked here.
      const parsed = key === 'expected_output' ? MessageSchema.safeParse(item.value) : null;
      if (parsed && !parsed.success) {
        reportZodIssues(parsed.error, item.value, this.doc, this.sink, where, subject);
        continue;
      }
      out.push(this.loadMessage(parsed?.data ?? (item.value as RawMessage), where, subject));
    }
    return out;
  }

  protected loadMessage(m: RawMessage, at: PathSegment[], subject: string): Message {
    this.checkKeys(m, KNOWN_MESSAGE_KEYS, at, subject);
    const message: Message = {
      role: m.role,
      parts: this.loadContent(m.content, [...at, 'content'], subject),
    };
    if (isRecord(m.content)) message.structured = m.content;
    if (Array.isArray(m.tool_calls)) message.toolCalls = m.tool_calls;
    return message;
  }

  protected loadContent(content: unknown, at: PathSegment[], subject: string): ContentPart[] {
    if (content === undefined || content === null) return [];
    if (typeof content === 'string') return [{ type: 'text', text: content }];
    if (!Array.isArray(content)) return [{ type: 'text', text: JSON.stringify(content, null, 2) }];
    const parts: ContentPart[] = [];
    content.forEach((part: { type: 'text' | 'file'; value: string }, i: number) => {
      this.checkKeys(part, KNOWN_PART_KEYS, [...at, i], subject);
      if (part.type === 'text') {
        parts.push({ type: 'text', text: part.value });
        return;
      }
      if (/^https?:\/\//i.test(part.value)) {
        const file = this.remoteReference(part.value, [...at, i, 'value'], subject);
        if (file) parts.push({ type: 'file', file });
        return;
      }
      const text = this.readReference(part.value, [...at, i, 'value'], subject);
      if (text) {
        parts.push({
          type: 'file',
          file: {
            path: this.ws.display(text.absPath),
            absPath: text.absPath,
            text: text.text,
            guideline: isGuidelineFile(part.value),
          },
        });
      }
    });
    return parts;
  }

  /** A file given as a URL: only GitHub blob URLs, fetched through the API before the run. */
  protected remoteReference(value: string, at: PathSegment[], subject: string): FileAttachment | undefined {
    const ref = parseGitHubBlobUrl(value);
    if (!ref) {
      this.sink.error(
        this.doc.locate(at),
        'remote-file',
        `'${value}' is not a GitHub file URL (https://github.com/{owner}/{repo}/blob/{ref}/{path}); other hosts are not fetched`,
        subject,
      );
      return undefined;
    }
    return { path: value, absPath: '', text: '', guideline: isGuidelineFile(ref.refAndPath), remote: ref };
  }

  protected readReference(
    value: string,
    at: PathSegment[],
    subject: string,
  ): { absPath: string; text: string } | undefined {
    const pos = this.doc.locate(at);
    return readReferencedFile(this.ws, value, this.dir, (rule, message) =>
      this.sink.error(pos, rule, message, subject),
    );
  }

  protected loadPrompt(value: string | undefined, at: PathSegment[], subject: string): PromptTemplate | null {
    if (value === undefined) return null;
    const read = this.readReference(value, at, subject);
    return read ? { path: this.ws.display(read.absPath), template: read.text } : null;
  }

  /** `prompt: {script: [argv], config?}`: the script's file (the last argv item) must exist. */
  protected loadPromptScript(
    value: { script: string[]; config?: Record<string, unknown> },
    at: PathSegment[],
    subject: string,
  ): PromptScript | undefined {
    const argv = value.script;
    const file = this.readReference(argv[argv.length - 1]!, [...at, 'script', argv.length - 1], subject);
    if (!file) return undefined;
    return {
      command: [...argv.slice(0, -1), file.absPath],
      cwd: path.dirname(file.absPath),
      config: value.config ?? null,
    };
  }

  protected resolveCwd(value: string | undefined, at: PathSegment[], subject: string): string {
    if (value === undefined) return this.dir;
    const abs = value.startsWith('/')
      ? path.join(this.ws.root, value.slice(1))
      : path.resolve(this.dir, value);
    if (!this.ws.contains(abs)) {
      this.sink.error(
        this.doc.locate(at),
        'escapes-workspace',
        `cwd '${excerpt(value)}' is outside the workspace`,
        subject,
      );
    }
    return abs;
  }

  /** Unknown keys of one object: a near miss of a known key is an error, others a warning. */
  protected checkKeys(
    obj: object,
    known: ReadonlySet<string>,
    at: PathSegment[],
    subject: string,
    passedTo?: string,
  ): void {
    checkUnknownKeys(obj as Record<string, unknown>, known, {
      sink: this.sink,
      locateKey: (key) => this.doc.locateKey([...at, key]),
      subject,
      open: passedTo ? { what: passedTo } : undefined,
    });
  }
}
