import { type Diagnostic, DiagnosticSink, excerpt } from '../core/diagnostics.js';
import { didYouMean } from '../core/did-you-mean.js';
import { readUserFile } from '../core/user-file.js';
import { type Workspace } from '../core/workspace.js';
import { fixedAnswer, type TargetRunner, TargetError } from './providers.js';

/**
 * Recorded answers: a JSONL of `{"eval_id", "candidate_answer"}` (AgentV's result field names, so
 * an AgentV results file works as input). Lets any stack produce answers in an earlier step.
 */
export function loadAnswersFile(
  absPath: string,
  ws: Workspace,
): { runner: TargetRunner | undefined; diagnostics: Diagnostic[]; lines?: ReadonlyMap<string, number> } {
  const display = ws.display(absPath);
  const sink = new DiagnosticSink(display);
  const text = readUserFile(absPath, ws, 'answers-file', sink, false);
  if (text === undefined) return { runner: undefined, diagnostics: sink.items };
  const answers = new Map<string, string>();
  const lines = new Map<string, number>();
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (err) {
      sink.error({ line: i + 1, column: 1 }, 'json', `not valid JSON: ${(err as Error).message}`);
      return;
    }
    const r = row as { eval_id?: unknown; candidate_answer?: unknown };
    if (typeof r?.eval_id !== 'string' && typeof r?.eval_id !== 'number') {
      sink.error({ line: i + 1, column: 1 }, 'required', 'each line needs "eval_id"');
      return;
    }
    if (typeof r.candidate_answer !== 'string') {
      sink.error(
        { line: i + 1, column: 1 },
        'required',
        `line for '${excerpt(String(r.eval_id))}' needs "candidate_answer" (a string)`,
      );
      return;
    }
    const id = String(r.eval_id);
    const first = lines.get(id);
    if (first !== undefined) {
      // Which one would be graded is not the file's to decide silently: two answers is an error.
      sink.error(
        { line: i + 1, column: 1 },
        'duplicate-id',
        `two answers for '${excerpt(id)}': lines ${first} and ${i + 1}; keep one`,
      );
      return;
    }
    answers.set(id, r.candidate_answer);
    lines.set(id, i + 1);
  });
  if (sink.hasErrors) return { runner: undefined, diagnostics: sink.items };
  return {
    runner: {
      name: 'answers-file',
      provider: 'answers-file',
      healthcheck: async () => {},
      answer: async (c) => {
        const text = answers.get(c.id);
        if (text === undefined)
          throw new TargetError(`no answer for case '${c.id}' in answers-file ${display}`);
        return fixedAnswer(text);
      },
    },
    diagnostics: sink.items,
    lines,
  };
}

/**
 * Answers and cases that do not meet, said before any call: a case without an answer will be an
 * `error` case; an answer for no case is most likely a misspelt id (the nearest case id is named).
 * Both are warnings, since an AgentV results file may cover other suites or fewer cases.
 */
export function matchAnswers(
  display: string,
  lines: ReadonlyMap<string, number>,
  cases: readonly { id: string; suitePath: string; pos: { line: number; column: number } }[],
): Diagnostic[] {
  const out: Diagnostic[] = [];
  const caseIds = new Set(cases.map((c) => c.id));
  for (const c of cases) {
    if (lines.has(c.id)) continue;
    out.push({
      severity: 'warning',
      file: c.suitePath,
      ...c.pos,
      rule: 'no-answer',
      subject: `case '${c.id}'`,
      message: `no answer for this case in answers-file ${display}: it will be an error`,
    });
  }
  for (const [id, line] of lines) {
    if (caseIds.has(id)) continue;
    const near = didYouMean(id, caseIds);
    out.push({
      severity: 'warning',
      file: display,
      line,
      column: 1,
      rule: 'unknown-case',
      message: `answer for '${id}' matches no case${near ? `; did you mean '${near}'?` : ''}`,
    });
  }
  return out;
}
