import { z } from 'zod';
import { fence } from './fence.js';
import { type JudgeRequest } from './judge.js';
import { type JudgePrompt, systemMessage } from './prompts.js';
import { zodMessage } from './schemas.js';

/**
 * promptfoo's `select-best`, asked our way: the criterion (the suite's text) plain, every answer
 * fenced and numbered from 0 in the siblings' order, and one JSON answer naming the best by its
 * number. An index outside the answers is invalid: the judge client re-asks, then errors.
 */

const SELECT_BEST = z.object({ reason: z.string(), best: z.number().int() });
export type SelectBestAnswer = z.infer<typeof SELECT_BEST>;

const shape = (count: number) =>
  `{"reason": "<1-2 sentences>", "best": <the answer's number, 0 to ${count - 1}>}`;

function selectBestPrompt(criterion: string, answers: readonly string[]): JudgePrompt {
  const listed = answers.map((a, i) => `[Answer ${i}]\n${fence(`answer_${i}`, a)}`).join('\n\n');
  return {
    messages: [
      systemMessage(
        `Several answers to the same task are compared. Pick the one answer that best meets the criterion; judge each only by what it says. Answer with one JSON object of this shape: ${shape(answers.length)}`,
      ),
      { role: 'user', content: `[Criterion]\n${criterion.trim()}\n\n${listed}` },
    ],
    shapeHint: shape(answers.length),
  };
}

export function selectBestRequest(
  criterion: string,
  answers: readonly string[],
): JudgeRequest<SelectBestAnswer> {
  const count = answers.length;
  return {
    prompt: selectBestPrompt(criterion, answers),
    schemaName: 'promptfoo_select_best',
    wireSchema: SELECT_BEST,
    validate: (data) => {
      const r = SELECT_BEST.safeParse(data);
      if (!r.success) return { ok: false, error: zodMessage(r.error) };
      if (r.data.best < 0 || r.data.best >= count)
        return {
          ok: false,
          error: `best: ${r.data.best} is not one of the ${count} answers (0 to ${count - 1})`,
        };
      return { ok: true, value: r.data, warnings: [] };
    },
  };
}
