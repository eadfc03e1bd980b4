import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import path from 'node:path';
import { type Diagnostic, DiagnosticSink } from '../diagnostics.js';
import { FileTooLargeError, type Workspace } from './workspace.js';

/** A checker rubric in the markdown format of seed 002. */
export interface MarkdownRubric {
  /** The file as the user named it (display path), or `(inline)` for sugar. */
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

export interface Gate {
  command: string;
  line: number;
}

export interface Criterion {
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

export function rubricHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}

/**
 * Parses a markdown rubric. All sections are optional; headings are case-insensitive. Unlike the
 * original, a bullet without backticks under Gates and an unknown `##` section are warned about
 * (with the line) instead of being silently dropped.
 */
export function parseMarkdownRubric(
  text: string,
  display: string,
  source: MarkdownRubric['source'] = 'file',
): { rubric: MarkdownRubric; diagnostics: Diagnostic[] } {
  const sink = new DiagnosticSink(display);
  const normalized = text.replace(/\r\n/g, '\n');
  const lines = normalized.split('\n');
  let title: string | null = null;
  let section: Section = 'none';
  const gates: Gate[] = [];
  const must: { text: string; line: number }[] = [];
  const nice: { text: string; line: number }[] = [];
  const notes: string[] = [];
  let lastItem: { text: string } | null = null;
  let inFence = false;

  lines.forEach((raw, i) => {
    const lineNo = i + 1;
    const line = raw.trimEnd();
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    const h1 = !inFence && /^#\s+(.+)$/.exec(line);
    const h2 = !inFence && /^##\s+(.+?)\s*#*\s*$/.exec(line);
    if (h1) {
      if (title === null) title = h1[1]!.trim();
      section = 'none';
      lastItem = null;
      return;
    }
    if (h2) {
      const name = h2[1]!.trim().toLowerCase().replace(/\s+/g, ' ').replace(/:$/, '');
      section = SECTION_NAMES[name] ?? 'unknown';
      if (section === 'unknown') {
        sink.warn(
          { line: lineNo, column: 1 },
          'unknown-section',
          `section '## ${h2[1]!.trim()}' is not one of Gates, Criteria, Nice to Have, Notes; its content is ignored`,
        );
      }
      lastItem = null;
      return;
    }
    if (section === 'notes') {
      notes.push(raw);
      return;
    }
    const bullet = /^[-*+]\s+(.*)$/.exec(line) ?? /^\d+[.)]\s+(.*)$/.exec(line);
    if (section === 'gates') {
      if (!bullet) return;
      const cmd = /`([^`]+)`/.exec(bullet[1]!);
      if (!cmd || cmd[1]!.trim() === '') {
        sink.warn(
          { line: lineNo, column: 1 },
          'gate-without-backticks',
          `gate bullet '${bullet[1]}' has no \`command\` in backticks; it is not run`,
        );
        return;
      }
      gates.push({ command: cmd[1]!.trim(), line: lineNo });
      return;
    }
    if (section === 'criteria' || section === 'nice') {
      const list = section === 'criteria' ? must : nice;
      if (bullet && bullet[1]!.trim() !== '') {
        const item = { text: bullet[1]!.trim(), line: lineNo };
        list.push(item);
        lastItem = item;
      } else if (lastItem && /^\s+\S/.test(raw)) {
        // An indented line continues the bullet above it.
        lastItem.text += ` ${raw.trim()}`;
      }
    }
  });

  return {
    rubric: {
      path: display,
      source,
      title,
      gates,
      criteria: must.map((c, i) => ({ id: `must-${i + 1}`, text: c.text, line: c.line })),
      niceToHave: nice.map((c, i) => ({ id: `nice-${i + 1}`, text: c.text, line: c.line })),
      notes: notes.join('\n').trim(),
      hash: rubricHash(normalized),
      text: normalized,
    },
    diagnostics: sink.items,
  };
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
    if (!ws.contains(abs)) {
      sink.error({ line: 0, column: 0 }, 'escapes-workspace', 'rubric file is outside the workspace');
      return { rubric: undefined, diagnostics: sink.items };
    }
    let text: string;
    try {
      if (!statSync(abs).isFile()) throw new Error('not a file');
      text = ws.readText(abs);
    } catch (err) {
      const rule = err instanceof FileTooLargeError ? 'too-large' : 'missing-file';
      const message = rule === 'too-large' ? (err as Error).message : `rubric file not found: ${display}`;
      sink.error({ line: 0, column: 0 }, rule, message);
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
