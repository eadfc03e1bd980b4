import path from 'node:path';
import type { Heading, InlineCode, List, ListItem, Nodes, Parent } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { type Diagnostic, DiagnosticSink, excerpt } from '../core/diagnostics.js';
import { readUserFile } from '../core/user-file.js';
import { type Workspace } from '../core/workspace.js';
import { sha256Hex } from '../core/sha256.js';

/** A markdown rubric (README, Markdown rubrics) as the checker reads it: gates, criteria, nice-to-haves, notes. */
export interface MarkdownRubric {
  /**
   * The file as the user named it (display path), or `(inline rubric)` for one given inline
   * (`agent: …` or a gate command).
   */
  path: string;
  source: 'file' | 'command' | 'agent';
  title: string | null;
  gates: Gate[];
  /** Must-haves: `must-1..N`. */
  criteria: Criterion[];
  /** Nice-to-haves: `nice-1..M`; reported, never blocking. */
  niceToHave: Criterion[];
  notes: string;
  /** First 12 hex digits of the sha256 of the rubric text, to spot edits between runs. */
  hash: string;
  text: string;
}

interface Gate {
  command: string;
  line: number;
}

interface Criterion {
  id: string;
  text: string;
  line: number;
}

type Section = 'gates' | 'criteria' | 'nice' | 'notes' | 'unknown' | 'none';

const SECTION_NAMES: Record<string, Section> = {
  gates: 'gates',
  gate: 'gates',
  criteria: 'criteria',
  'must have': 'criteria',
  'must haves': 'criteria',
  'must-have': 'criteria',
  'must-haves': 'criteria',
  'nice to have': 'nice',
  'nice to haves': 'nice',
  'nice-to-have': 'nice',
  'nice-to-haves': 'nice',
  notes: 'notes',
};

/**
 * A hand-written rubric is a few kilobytes; a CommonMark parse reads a few hundred kilobytes a
 * second (`npm run bench`, scenario rubric), so a rubric a pull request inflated is refused
 * before it is parsed, not after.
 */
const RUBRIC_MAX_BYTES = 128 * 1024;

function rubricHash(text: string): string {
  return sha256Hex(text, 12);
}

/**
 * Parses a markdown rubric with a CommonMark parser, so code spans of any backtick length, both
 * fence kinds, nested lists, setext headings, HTML comments and escapes mean what CommonMark says.
 * All sections are optional; headings are case-insensitive. A bullet without backticks under Gates
 * and an unknown `##` section are warned about with their line; a gate bullet whose code span is
 * broken (a backtick run that closes nothing) is an error, never a shortened command.
 */
export function parseMarkdownRubric(
  text: string,
  display: string,
  source: MarkdownRubric['source'] = 'file',
): { rubric: MarkdownRubric; diagnostics: Diagnostic[] } {
  const sink = new DiagnosticSink(display);
  const normalized = text.replace(/\r\n/g, '\n');
  const doc = new RubricSource(normalized);
  let title: string | null = null;
  let section: Section = 'none';
  const gates: Gate[] = [];
  const lists: Record<'criteria' | 'nice', { text: string; line: number }[]> = { criteria: [], nice: [] };
  const notes: string[] = [];
  let notesFrom: number | null = null;

  const closeNotes = (at: number) => {
    if (notesFrom !== null) notes.push(normalized.slice(notesFrom, at));
    notesFrom = null;
  };
  for (const node of fromMarkdown(normalized).children) {
    if (node.type === 'heading' && node.depth <= 2) {
      closeNotes(doc.start(node));
      if (node.depth === 1) {
        title ??= doc.slice(node.children).trim() || null;
        section = 'none';
        continue;
      }
      section = sectionOf(node, doc, sink);
      if (section === 'notes') notesFrom = doc.end(node);
      continue;
    }
    if (node.type !== 'list') continue;
    if (section === 'gates') readGates(node, doc, sink, gates);
    else if (section === 'criteria' || section === 'nice')
      for (const item of node.children) {
        const itemText = doc.itemText(item);
        if (itemText !== '') lists[section].push({ text: itemText, line: doc.line(item) });
      }
  }
  closeNotes(normalized.length);

  return {
    rubric: {
      path: display,
      source,
      title,
      gates,
      criteria: lists.criteria.map((c, i) => ({ id: `must-${i + 1}`, text: c.text, line: c.line })),
      niceToHave: lists.nice.map((c, i) => ({ id: `nice-${i + 1}`, text: c.text, line: c.line })),
      notes: notes.join('\n').trim(),
      hash: rubricHash(normalized),
      text: normalized,
    },
    diagnostics: sink.items,
  };
}

function sectionOf(heading: Heading, doc: RubricSource, sink: DiagnosticSink): Section {
  const name = plainText(heading).trim().toLowerCase().replace(/\s+/g, ' ').replace(/:$/, '');
  const section = SECTION_NAMES[name] ?? 'unknown';
  if (section === 'unknown') {
    sink.warn(
      doc.position(heading),
      'unknown-section',
      `section '## ${excerpt(doc.slice(heading.children).trim())}' is not one of Gates, Criteria, Nice to Have, Notes; its content is ignored`,
    );
  }
  return section;
}

/**
 * Every item of a list under Gates, nested lists included, is a gate when its own paragraph holds
 * a code span: the first one is the command. An item that only groups nested items is not warned
 * about.
 */
function readGates(list: List, doc: RubricSource, sink: DiagnosticSink, gates: Gate[]): void {
  for (const item of list.children) {
    const nested = item.children.filter((c): c is List => c.type === 'list');
    const own = item.children.filter((c) => c.type !== 'list');
    const para = own[0]?.type === 'paragraph' ? own[0] : undefined;
    const shown = excerpt(own.length > 0 ? doc.slice(own).split('\n')[0]!.trim() : '');
    const stray = para ? strayBacktick(para, doc) : null;
    const code = para ? firstCodeSpan(para) : undefined;
    if (stray !== null) {
      sink.error(
        doc.positionAt(stray),
        'unclosed-code-span',
        `gate bullet '${shown}' has a backtick run that closes no code span (a code span ends with a run of as many backticks as it starts with); it is not run`,
      );
    } else if (code && code.value.trim() !== '') {
      gates.push({ command: code.value.trim(), line: doc.line(item) });
    } else if (nested.length === 0 && own.length > 0) {
      sink.warn(
        doc.position(item),
        'gate-without-backticks',
        `gate bullet '${shown}' has no \`command\` in backticks; it is not run`,
      );
    }
    for (const l of nested) readGates(l, doc, sink, gates);
  }
}

function firstCodeSpan(node: Parent): InlineCode | undefined {
  for (const child of node.children) {
    if (child.type === 'inlineCode') return child;
    if ('children' in child) {
      const found = firstCodeSpan(child);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * Where a backtick that CommonMark kept as text was written unescaped: the author meant a code
 * span and did not close it, so no command can be read from the bullet.
 */
function strayBacktick(node: Parent, doc: RubricSource): number | null {
  for (const child of node.children) {
    if (child.type === 'text') {
      const m = /(?<!\\)(?:\\\\)*`/.exec(doc.slice([child]));
      if (m) return doc.start(child) + m.index + m[0].length - 1;
    } else if ('children' in child && child.type !== 'link' && child.type !== 'linkReference') {
      const found = strayBacktick(child, doc);
      if (found !== null) return found;
    }
  }
  return null;
}

function plainText(node: Nodes): string {
  if ('value' in node && typeof node.value === 'string') return node.value;
  return 'children' in node ? node.children.map(plainText).join('') : '';
}

/** The rubric's text with the parser's offsets turned into what the user reads: lines, columns, source. */
class RubricSource {
  private readonly lineStarts: number[] = [0];
  constructor(private readonly text: string) {
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) this.lineStarts.push(i + 1);
  }
  start(node: Nodes): number {
    return node.position?.start.offset ?? 0;
  }
  end(node: Nodes): number {
    return node.position?.end.offset ?? this.text.length;
  }
  line(node: Nodes): number {
    return node.position?.start.line ?? 0;
  }
  position(node: Nodes): { line: number; column: number } {
    return { line: node.position?.start.line ?? 0, column: node.position?.start.column ?? 0 };
  }
  positionAt(offset: number): { line: number; column: number } {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - this.lineStarts[lo]! + 1 };
  }
  /** The source from the first node's start to the last node's end, as the user wrote it. */
  slice(nodes: Nodes[]): string {
    const first = nodes[0];
    const last = nodes[nodes.length - 1];
    return first && last ? this.text.slice(this.start(first), this.end(last)) : '';
  }
  /** A list item's text as written, its lines joined by spaces (nested bullets included). */
  itemText(item: ListItem): string {
    return this.slice(item.children)
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '')
      .join(' ');
  }
}

/**
 * Turns the `rubric` input into a rubric: a `.md` path is a file; `agent: <text>` is a
 * criteria-only rubric; anything else is a shell command, a gates-only rubric. A missing file or
 * a rubric that could never fail (no gates, no must-haves) is an error, never an automatic pass.
 */
export function rubricFromInput(
  value: string,
  ws: Workspace,
  cwd: string = ws.root,
): { rubric: MarkdownRubric | undefined; diagnostics: Diagnostic[] } {
  const trimmed = value.trim();
  let parsed: { rubric: MarkdownRubric; diagnostics: Diagnostic[] };
  if (/\.md$/i.test(trimmed) && !/\s/.test(trimmed)) {
    const abs = path.resolve(cwd, trimmed);
    const display = ws.display(abs);
    const sink = new DiagnosticSink(display);
    const text = readUserFile(abs, ws, 'rubric file', sink);
    if (text === undefined) return { rubric: undefined, diagnostics: sink.items };
    if (Buffer.byteLength(text) > RUBRIC_MAX_BYTES) {
      sink.error(
        { line: 0, column: 0 },
        'too-large',
        `rubric file is ${Buffer.byteLength(text)} bytes; a rubric may be at most ${RUBRIC_MAX_BYTES} bytes`,
      );
      return { rubric: undefined, diagnostics: sink.items };
    }
    parsed = parseMarkdownRubric(text, display, 'file');
  } else if (/^agent:/i.test(trimmed)) {
    const criterion = trimmed.replace(/^agent:\s*/i, '');
    parsed = parseMarkdownRubric(`## Criteria\n- ${criterion}\n`, '(inline rubric)', 'agent');
  } else {
    // Built directly, not re-parsed: the command may itself contain backticks.
    parsed = parseMarkdownRubric(`## Gates\n- \`\` ${trimmed} \`\`\n`, '(inline rubric)', 'command');
    parsed.rubric.gates = [{ command: trimmed, line: 2 }];
    parsed.diagnostics = [];
  }
  const { rubric } = parsed;
  const diagnostics = [...parsed.diagnostics];
  if (rubric.gates.length === 0 && rubric.criteria.length === 0) {
    diagnostics.push({
      severity: 'error',
      file: rubric.path,
      line: 0,
      column: 0,
      rule: 'empty-rubric',
      message:
        'the rubric has no gates and no criteria, so nothing could fail it; add `## Gates` or `## Criteria`',
    });
    return { rubric: undefined, diagnostics };
  }
  return { rubric, diagnostics };
}
