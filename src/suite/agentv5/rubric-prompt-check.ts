import { excerpt } from '../../core/diagnostics.js';
import { type ModelGradedConfig } from '../types.js';

/**
 * A suite's `rubricPrompt` is filled by `{{ name }}` alone (judge/prompts.ts `renderTemplate`),
 * never rendered by Nunjucks: a filter, a tag or a dotted name would reach the judge as written,
 * and a prompt that never places the graded text would be graded on nothing. Both are refused at
 * load, so a case is never decided by a judge that did not see what it grades.
 */

type Kind = ModelGradedConfig['kind'] | 'llm-rubric';

/** What each step places for the judge to grade (the placeholders of judge/model-graded-prompts.ts). */
const NEEDS: Record<Kind, Record<string, readonly string[]>> = {
  'llm-rubric': { 0: ['output'] },
  factuality: { 0: ['completion'] },
  'model-graded-closedqa': { 0: ['completion'] },
  'g-eval': { steps: ['criteria'], evaluate: ['output'] },
  'answer-relevance': { 0: ['answer'] },
  'context-faithfulness': { 0: ['answer'], 1: ['context', 'statements'] },
  'context-relevance': { 0: ['context', 'query'] },
  'context-recall': { 0: ['context', 'groundTruth'] },
  'conversation-relevance': { 0: ['messages'] },
};

/**
 * Every `{{ ... }}` in order, as a lazy `/\{\{([\s\S]*?)\}\}/g` finds them, in one pass: that
 * pattern rescans to the end from each `{{` with no `}}` after it (a suite's 600 KB of `{{` held
 * the load for 47 s). The ones that are a plain name are what gets filled.
 */
function* placeholders(text: string): Generator<{ whole: string; inside: string }> {
  for (let at = text.indexOf('{{'); at !== -1;) {
    const end = text.indexOf('}}', at + 2);
    if (end === -1) return;
    yield { whole: text.slice(at, end + 2), inside: text.slice(at + 2, end) };
    at = text.indexOf('{{', end + 2);
  }
}

const PLAIN_NAME = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*$/;

/** The text a prompt's placeholders are in: one text, or a chat's message contents. */
function textOf(prompt: string): string {
  try {
    const chat = JSON.parse(prompt) as unknown;
    if (Array.isArray(chat))
      return chat.map((m) => String((m as { content?: unknown } | null)?.content ?? '')).join('\n');
  } catch {
    /* one text */
  }
  return prompt;
}

/** Why one step's prompt cannot be used, or null; `step` names it (`\`rubricPrompt[1]\``). */
function stepProblem(prompt: string, needs: readonly string[], step: string): string | null {
  const text = textOf(prompt);
  const names = new Set<string>();
  for (const p of placeholders(text)) {
    const name = PLAIN_NAME.exec(p.inside)?.[1];
    if (!name)
      return `${step} uses \`${excerpt(p.whole, 80)}\`, which is Nunjucks beyond \`{{ name }}\`: grader prompts fill \`{{ name }}\` placeholders only (write the value's name alone)`;
    names.add(name);
  }
  const tag = /\{%|\{#/.exec(text);
  if (tag)
    return `${step} uses a Nunjucks \`${tag[0]}\` tag or comment: grader prompts fill \`{{ name }}\` placeholders only`;
  const missing = needs.filter((n) => !names.has(n));
  if (missing.length > 0)
    return `${step} never names ${missing.map((n) => `\`{{${n}}}\``).join(' and ')}: the judge would not see what it grades`;
  return null;
}

/**
 * Why a kind's `rubricPrompt` (as read: a text, a list by step, g-eval's `{steps, evaluate}`)
 * cannot be used, or null. Steps are matched as the grader picks them (model-graded.ts
 * `suitePrompt`): a text is the first step's; entries past the kind's steps are not used.
 */
export function rubricPromptProblem(
  prompt: NonNullable<ModelGradedConfig['rubricPrompt']>,
  kind: Kind,
): string | null {
  const needs = NEEDS[kind];
  const steps: [string, string][] =
    typeof prompt === 'string'
      ? [['0', prompt]]
      : Array.isArray(prompt)
        ? prompt.map((p, i): [string, string] => [String(i), p])
        : Object.entries(prompt);
  for (const [slot, text] of steps) {
    const need = needs[slot];
    if (!need) continue;
    const step =
      typeof prompt === 'string'
        ? '`rubricPrompt`'
        : Array.isArray(prompt)
          ? `\`rubricPrompt[${slot}]\``
          : `\`rubricPrompt.${slot}\``;
    const problem = stepProblem(text, need, step);
    if (problem) return problem;
  }
  return null;
}
