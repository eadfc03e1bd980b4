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

export function systemMessage(extra: string): ChatMessage {
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
      systemMessage('For every rubric item, decide whether the candidate answer satisfies it.'),
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
      systemMessage(
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
      systemMessage(
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
      systemMessage('Follow the evaluation task below and score from 0.0 to 1.0.'),
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
