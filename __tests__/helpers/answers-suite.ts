import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type RunResults } from '../../src/core/results.js';
import { runEvaluation } from '../../src/pipeline/run.js';
import { engineConfig } from './engine.js';
import { tmpDir } from './judge.js';

/**
 * One suite (evals/suite.yaml, beside `files`) graded through the real pipeline on recorded
 * answers (an answers file keyed by test id), with the judge at `judgeUrl`.
 */
export async function gradeAnswers(
  suite: string,
  answers: Record<string, string>,
  judgeUrl: string,
  files: Record<string, string> = {},
  env: NodeJS.ProcessEnv = { PATH: process.env.PATH },
): Promise<RunResults> {
  const root = tmpDir('re-answers-suite-');
  mkdirSync(path.join(root, 'evals'));
  writeFileSync(path.join(root, 'evals/suite.yaml'), suite);
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(root, 'evals', name), text);
  writeFileSync(
    path.join(root, 'answers.jsonl'),
    Object.entries(answers)
      .map(([id, a]) => JSON.stringify({ eval_id: id, candidate_answer: a }))
      .join('\n'),
  );
  const { results } = await runEvaluation(
    engineConfig(root, judgeUrl, { suites: ['evals/suite.yaml'], answersFile: 'answers.jsonl' }),
    { env },
  );
  return results;
}
