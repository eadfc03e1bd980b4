import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadInputs } from '../../src/pipeline/load.js';
import { Workspace } from '../../src/core/workspace.js';
import { makeFixtureRepo } from '../helpers/fixture-repo.js';

describe('load stage', () => {
  test('loads every suite, the markdown rubric and the answers file', async () => {
    const root = makeFixtureRepo();
    writeFileSync(
      path.join(root, 'answers.jsonl'),
      '{"eval_id": "capital-of-france", "candidate_answer": "Paris."}\n',
    );
    const loaded = await loadInputs(
      { suites: ['evals/*.yaml'], rubric: 'RUBRIC.md', answersFile: 'answers.jsonl' },
      new Workspace(root),
    );
    // A case the answers file does not answer is said before any call (it will be an error).
    expect(loaded.diagnostics.map((d) => [d.severity, d.rule, d.subject])).toEqual([
      ['warning', 'no-answer', "case 'explain-quicksort'"],
    ]);
    expect(loaded.suites.map((s) => [s.path, s.cases.map((c) => c.id)])).toEqual([
      ['evals/qa.yaml', ['capital-of-france', 'explain-quicksort']],
    ]);
    expect(loaded.rubric?.gates).toHaveLength(2);
    expect(loaded.answers?.name).toBe('answers-file');
  });

  test('collects the problems of every file at once, and a glob that matches nothing', async () => {
    const root = makeFixtureRepo();
    writeFileSync(
      path.join(root, 'evals/bad.yaml'),
      'evalcases:\n  - id: x\n    input: hi\n    rubrics: 7\n',
    );
    const loaded = await loadInputs(
      { suites: ['evals/*.yaml', 'nothing/*.yaml'], rubric: null, answersFile: null },
      new Workspace(root),
    );
    const errors = loaded.diagnostics.filter((d) => d.severity === 'error');
    expect(errors.map((d) => d.file)).toEqual(expect.arrayContaining(['evals/bad.yaml', 'nothing/*.yaml']));
    expect(errors.find((d) => d.file === 'nothing/*.yaml')?.rule).toBe('no-match');
    // The valid suite still loads: validation reports, the plan decides that nothing runs.
    expect(loaded.suites.map((s) => s.path)).toContain('evals/qa.yaml');
  });
});
