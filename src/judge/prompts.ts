import { type ChecklistItem, type RangeCriterion } from '../rubric/types.js';
import { fence, FENCE_RULE } from './fence.js';
import { fillTemplate } from '../core/template.js';

/** One chat message sent to the judge. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** What a prompt builder returns: the messages, and a compact description of the answer shape
 * that the judge client adds when the endpoint cannot enforce the JSON schema itself. */
export interface JudgePrompt {
  messages: ChatMessage[];
  shapeHint: string;
}

/** Everything about one case that a prompt may show. Candidate text is untrusted. */
export interface CaseContext {
  question: string;
  expectedOutcome: string;
  referenceAnswer: string;
  candidateAnswer: string;
  /** JSON texts, for AgentV's `{{input_messages}}`, `{{expected_messages}}`, `{{output_messages}}`. */
  inputMessagesJson: string;
  expectedMessagesJson: string;
  outputMessagesJson: string;
}

const GRADER =
  'You are an impartial grader in an automated evaluation. Judge only what the candidate answer actually says; ' +
  'when in doubt, a check is not satisfied. Keep each reasoning to one or two sentences, written before its verdict or score.';

function system(extra: string): ChatMessage {
  return { role: 'system', content: `${GRADER}\n${FENCE_RULE}\n${extra}`.trim() };
}

/** The case as the judge sees it: trusted task text plain, the candidate answer fenced. */
function caseSections(ctx: CaseContext): string {
  const parts: string[] = [];
  if (ctx.expectedOutcome.trim()) parts.push(`[[ ## expected_outcome ## ]]\n${ctx.expectedOutcome.trim()}`);
  parts.push(`[[ ## question ## ]]\n${ctx.question.trim()}`);
  if (ctx.referenceAnswer.trim()) parts.push(`[[ ## reference_answer ## ]]\n${ctx.referenceAnswer.trim()}`);
  parts.push(`[[ ## candidate_answer ## ]]\n${fence('candidate_answer', ctx.candidateAnswer)}`);
  return parts.join('\n\n');
}

export function checklistPrompt(ctx: CaseContext, items: readonly ChecklistItem[]): JudgePrompt {
  const rubric = items
    .map((i) => `[${i.id}]${i.required ? ' (required)' : ''} (weight ${i.weight}): ${i.outcome.trim()}`)
    .join('\n');
  return {
    messages: [
      system('For every rubric item, decide whether the candidate answer satisfies it.'),
      { role: 'user', content: `${caseSections(ctx)}\n\n[[ ## rubric ## ]]\n${rubric}` },
    ],
    shapeHint: `{"checks": [{"id": "<item id>", "reasoning": "<why>", "satisfied": true|false}, ... one per id: ${items.map((i) => i.id).join(', ')}], "overall_reasoning": "<summary>"}`,
  };
}

export function scoreRangePrompt(ctx: CaseContext, items: readonly RangeCriterion[]): JudgePrompt {
  const criteria = items
    .map((c) => {
      const head = `[${c.id}] (weight ${c.weight})${c.requiredMinScore !== null ? ` (required_min_score ${c.requiredMinScore})` : ''}${c.outcome.trim() ? `: ${c.outcome.trim()}` : ''}`;
      const bands = c.bands.map((b) => `  ${b.min}-${b.max}: ${b.outcome.trim()}`).join('\n');
      return `${head}\n${bands}`;
    })
    .join('\n');
  return {
    messages: [
      system(
        'For every criterion, choose the band whose description fits the candidate answer best and answer one integer score from 0 to 10 inside that band.',
      ),
      { role: 'user', content: `${caseSections(ctx)}\n\n[[ ## criteria ## ]]\n${criteria}` },
    ],
    shapeHint: `{"checks": [{"id": "<criterion id>", "reasoning": "<why>", "score": <integer 0-10>}, ... one per id: ${items.map((i) => i.id).join(', ')}], "overall_reasoning": "<summary>"}`,
  };
}

const FREEFORM_SHAPE =
  '{"reasoning": "<1-2 sentences>", "hits": ["<up to 4 specific strengths>"], "misses": ["<up to 4 specific failures, empty if none>"], "score": <number 0.0-1.0>}';

export function freeformPrompt(ctx: CaseContext): JudgePrompt {
  return {
    messages: [
      system(
        'Grade how well the candidate answer achieves the expected outcome for the question. Use the reference answer, if given, as a gold standard for the key points, not for wording. Score from 0.0 to 1.0.',
      ),
      { role: 'user', content: caseSections(ctx) },
    ],
    shapeHint: FREEFORM_SHAPE,
  };
}

/**
 * A user's prompt file with AgentV's placeholders (`{{question}}`, `{{ candidate_answer }}`, ...).
 * The candidate answer and output messages are substituted fenced; `extra` adds variables such
 * as `EVALUATOR_RESULTS_JSON` for an llm_judge aggregator.
 */
export function templatePrompt(
  ctx: CaseContext,
  template: string,
  extra: Record<string, string> = {},
): JudgePrompt {
  const vars: Record<string, string> = {
    question: ctx.question,
    expected_outcome: ctx.expectedOutcome,
    reference_answer: ctx.referenceAnswer,
    candidate_answer: fence('candidate_answer', ctx.candidateAnswer),
    input_messages: ctx.inputMessagesJson,
    expected_messages: ctx.expectedMessagesJson,
    output_messages: fence('output_messages', ctx.outputMessagesJson),
    ...extra,
  };
  const content = renderTemplate(template, vars);
  return {
    messages: [
      system('Follow the evaluation task below and score from 0.0 to 1.0.'),
      { role: 'user', content },
    ],
    shapeHint: FREEFORM_SHAPE,
  };
}

/** Replaces `{{ name }}` placeholders; unknown names stay as written so a typo is visible. */
export function renderTemplate(template: string, vars: Record<string, string>): string {
  return fillTemplate(template, /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g, (name) =>
    Object.hasOwn(vars, name) ? vars[name] : undefined,
  );
}

// ---------------------------------------------------------------------------------------------
// The markdown-rubric checker contract (seed 002 §6), where the subject is a pull request.

export interface GateContext {
  command: string;
  passed: boolean;
  exitCode: number | null;
  timedOut: boolean;
  output: string;
}

export interface Subject {
  kind: 'pull_request' | 'commit' | 'diff';
  title: string;
  body: string;
  files: string[];
  diff: string;
  /** Files whose diff was left out to fit the budget. */
  trimmed: string[];
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
export const GATE_OUTPUT_TAIL = 3000;

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
    messages: [system(''), { role: 'user', content: s.join('\n\n') }],
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
