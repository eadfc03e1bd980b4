import { fence } from './fence.js';
import { MODEL_GRADED_SHAPES, type ModelGradedSchema } from './model-graded-schemas.js';
import { type ChatMessage, type JudgePrompt, renderTemplate, systemMessage } from './prompts.js';

/**
 * Our own prompt text for promptfoo's model-graded assertions (promptfoo's semantics, not its
 * words), one per step, with promptfoo's placeholder names so a suite's `rubricPrompt` written for
 * promptfoo reads the same values. Whatever comes from the answer (or could: context, the
 * conversation, statements drawn from the answer) is placed fenced.
 */

const TEXT: Record<ModelGradedSchema, string> = {
  factuality: `Compare the submitted answer with the expert answer to the question on their facts alone (ignore style, wording, grammar and punctuation), and choose one category:
(A) the submitted answer is a subset of the expert answer and fully consistent with it;
(B) the submitted answer is a superset of the expert answer and fully consistent with it;
(C) the submitted answer contains all the same details as the expert answer;
(D) the submitted answer disagrees with the expert answer;
(E) the answers differ, but the differences do not matter for the facts.

[Question]
{{input}}

[Expert answer]
{{ideal}}

[Submitted answer]
{{completion}}`,
  closedqa: `Decide whether the submission meets the criterion, given the task it answers. Reason first, then answer meets_criterion.

[Task]
{{input}}

[Submission]
{{completion}}

[Criterion]
{{criteria}}`,
  geval_steps: `Write three to five short, concrete steps a grader should follow to decide how well a reply meets these evaluation criteria.

[Criteria]
{{criteria}}`,
  geval_score: `Grade the reply to the source text against the criteria, following the steps. Score from 0 (does not meet them at all) to {{maxScore}} (meets them fully).

[Criteria]
{{criteria}}

[Steps]
- {{steps}}

[Source text]
{{input}}

[Reply]
{{output}}`,
  questions: `Write three different questions that the answer below answers: each the question a user would have asked to receive this answer.

[Answer]
{{answer}}`,
  statements: `Break the answer to the question into short statements, each self-contained (no pronouns that point elsewhere) and making one claim. Keep every claim the answer makes; add none.

[Question]
{{question}}

[Answer]
{{answer}}`,
  verdicts: `For each numbered statement, decide whether the context supports it: supported only when it can be inferred from the context alone. Answer one verdict per statement, in their order.

[Context]
{{context}}

[Statements]
{{statements}}`,
  relevant_lines: `The context below is given as numbered lines. List the numbers of the lines that are relevant to answering the query (none, if the context holds nothing that helps).

[Query]
{{query}}

[Context]
{{context}}`,
  attributions: `Split the reference answer into its sentences. For each sentence, decide whether it can be attributed to the context (the context states or directly supports it).

[Context]
{{context}}

[Reference answer]
{{groundTruth}}`,
  relevance: `Decide whether the assistant's last reply is relevant to the conversation: it addresses what the user asked, in the context of the earlier turns. Answer yes or no.

[Conversation]
{{messages}}`,
};

/** Values the prompt shows: `plain` are the suite's own text, `untrusted` come from or near the answer. */
export interface PromptValues {
  plain: Record<string, string>;
  untrusted: Record<string, string>;
}

function rendered(template: string, values: PromptValues, vars: Record<string, unknown>): string {
  const all: Record<string, string> = {};
  for (const [k, v] of Object.entries(vars)) all[k] = typeof v === 'string' ? v : JSON.stringify(v);
  Object.assign(all, values.plain);
  for (const [k, v] of Object.entries(values.untrusted)) all[k] = fence(k, v);
  return renderTemplate(template, all);
}

/**
 * The suite's own grader prompt as messages: a chat (a JSON list of {role, content}) or one text.
 * Our system message comes first either way: it holds the fence rule and the answer shape.
 */
export function suiteMessages(
  prompt: string,
  values: PromptValues,
  vars: Record<string, unknown>,
): ChatMessage[] {
  try {
    const parsed = JSON.parse(prompt) as unknown;
    if (
      Array.isArray(parsed) &&
      parsed.length > 0 &&
      parsed.every(
        (m) =>
          typeof m === 'object' && m !== null && typeof (m as { content?: unknown }).content === 'string',
      )
    )
      return (parsed as { role?: unknown; content: string }[]).map((m) => ({
        role: m.role === 'assistant' ? 'assistant' : 'user',
        content: rendered(m.content, values, vars),
      }));
  } catch {
    /* one text */
  }
  return [{ role: 'user', content: rendered(prompt, values, vars) }];
}

/** One step's prompt: ours, or the suite's `rubricPrompt` text in its place; the answer shape stays ours. */
export function modelGradedPrompt(
  step: ModelGradedSchema,
  values: PromptValues,
  vars: Record<string, unknown>,
  suitePrompt: string | null,
): JudgePrompt {
  const shape = MODEL_GRADED_SHAPES[step];
  const system = systemMessage(`Answer with one JSON object of this shape: ${shape}`);
  const user = suitePrompt
    ? suiteMessages(suitePrompt, values, vars)
    : [{ role: 'user' as const, content: rendered(TEXT[step], values, {}) }];
  return { messages: [system, ...user], shapeHint: shape };
}
