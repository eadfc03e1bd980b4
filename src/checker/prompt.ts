import { fence } from '../judge/fence.js';
import { type JudgePrompt, systemMessage } from '../judge/prompts.js';
import { type Subject } from './subject.js';

/*
 * The checker's prompt: the gates' results, the criteria, the notes and the change under review
 * (a pull request, a commit or a diff), with the earlier iterations on the same pull request.
 */

export interface GateContext {
  command: string;
  passed: boolean;
  exitCode: number | null;
  timedOut: boolean;
  output: string;
}

export interface PriorIteration {
  iteration: number;
  commit: string | null;
  verdict: string;
  counts: string | null;
  feedback: string | null;
}

export interface CheckerInput {
  gates: GateContext[];
  must: { id: string; text: string }[];
  nice: { id: string; text: string }[];
  notes: string;
  subject: Subject;
  iteration: number;
  prior: PriorIteration[];
}

/** How much of each gate's output the checker sees: the end of a failing run is what matters. */
const GATE_OUTPUT_TAIL = 3000;

export function checkerPrompt(input: CheckerInput): JudgePrompt {
  const s: string[] = [];
  s.push('# Role\nYou are a checker. Evaluate the pull request (the doer output) against each criterion.');
  if (input.gates.length > 0) {
    s.push(
      '# Gate Results\n' +
        input.gates
          .map(
            (g) =>
              `- \`${g.command}\` — ${g.passed ? 'PASS' : 'FAIL'}${g.timedOut ? ' (timed out)' : g.exitCode !== null ? ` (exit ${g.exitCode})` : ''}`,
          )
          .join('\n'),
    );
    const outputs = input.gates
      .filter((g) => g.output.trim() !== '')
      .map((g) => `### \`${g.command}\`\n${fence('gate_output', tail(g.output, GATE_OUTPUT_TAIL))}`);
    if (outputs.length > 0) s.push(`## Gate Output\n${outputs.join('\n\n')}`);
  }
  if (input.must.length > 0) {
    s.push(
      '# Must-Have Criteria\nFor each, decide whether it is satisfied, with a brief explanation.\n\n' +
        input.must.map((c) => `[${c.id}] ${c.text}`).join('\n'),
    );
  }
  if (input.nice.length > 0) {
    s.push(
      "# Nice-to-Have Criteria\nEvaluate each. These don't block acceptance but should be noted.\n\n" +
        input.nice.map((c) => `[${c.id}] ${c.text}`).join('\n'),
    );
  }
  if (input.notes.trim()) s.push(`# Notes\n${input.notes.trim()}`);
  const sub = input.subject;
  const subjectText = [
    `Title: ${sub.title}`,
    sub.body.trim() ? `Description:\n${sub.body.trim()}` : 'Description: (none)',
    `Changed files (${sub.files.length}):\n${sub.files.map((f) => `- ${f}`).join('\n')}`,
    sub.trimmed.length > 0 ? `Diff left out to fit the budget for: ${sub.trimmed.join(', ')}` : '',
    `Diff:\n${sub.diff}`,
  ]
    .filter(Boolean)
    .join('\n\n');
  const label =
    sub.kind === 'pull_request'
      ? 'the pull request'
      : sub.kind === 'commit'
        ? 'the last commit'
        : 'the change';
  s.push(`# Doer Output: ${label}\n${fence('pull_request', subjectText)}`);
  s.push(`# Iteration\nThis is iteration ${input.iteration}.`);
  if (input.prior.length > 0) {
    // Earlier verdicts quote the PR (feedback, counts): data for the judge, never instructions.
    const prior = input.prior
      .map(
        (p) =>
          `- Iteration ${p.iteration}${p.commit ? ` (${p.commit.slice(0, 7)})` : ''}: **${p.verdict.toUpperCase()}**${p.counts ? ` — ${p.counts}` : ''}${p.feedback ? ` — ${oneLine(p.feedback, 300)}` : ''}`,
      )
      .join('\n');
    s.push(`# Prior Iterations\n${fence('prior_iterations', prior)}`);
  }
  s.push(
    '# Verdict\naccept — all gates pass AND all must-have criteria are satisfied\nretry — any gate or must-have fails (give specific, actionable feedback)\nterminate — fundamentally broken',
  );
  const ids = [...input.must, ...input.nice].map((c) => c.id);
  return {
    messages: [systemMessage(''), { role: 'user', content: s.join('\n\n') }],
    shapeHint: `{"checks": [{"id": "<criterion id>", "reasoning": "<why>", "satisfied": true|false}, ... one per id: ${ids.join(', ')}], "feedback": "<specific feedback>", "verdict": "accept"|"retry"|"terminate"}`,
  };
}

function tail(text: string, max: number): string {
  return text.length <= max ? text : `[… ${text.length - max} earlier characters cut …]\n${text.slice(-max)}`;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}
