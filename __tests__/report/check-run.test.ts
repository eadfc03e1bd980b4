import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { rubricFromInput } from '../../src/checker/markdown-rubric.js';
import { type CaseResult, type CheckerResult, type RunResults } from '../../src/core/results.js';
import { Workspace } from '../../src/core/workspace.js';
import { checkRunPlacement } from '../../src/github/check-run-report.js';
import {
  CHECK_TEXT_LIMIT,
  checkConclusion,
  checkRunAnnotations,
  checkRunOutput,
  MAX_CHECK_ANNOTATIONS,
} from '../../src/report/check-run.js';
import { idKeyLine } from '../../src/report/id-key-line.js';
import { loadSuiteFile } from '../../src/suite/load-suite.js';
import { tmpDir } from '../helpers/judge.js';
import { resultsOf } from '../helpers/results.js';

const same = (t: string) => t;

describe("a YAML case's `id:` line", () => {
  const text = [
    'evalcases:', // 1
    '  - input: What is 2+2?', // 2
    '    # the id comes second', // 3
    '    criteria: says 4', // 4
    '    id: add', // 5
    '  - id: first', // 6
    '    input: hi', // 7
    '  -', // 8
    '    input: x', // 9
    '    id: dashed', // 10
    '  - {input: y, id: flow}', // 11
    '  - input: no id here', // 12
    '    nested:', // 13
    '      id: not-mine', // 14
    '  - id: next', // 15
  ].join('\n');
  test.each([
    [2, 5],
    [6, 6],
    [8, 10],
    [11, 11],
    [12, 12],
    [99, 99],
  ])('from the loader line %i to %i', (from, to) => expect(idKeyLine(text, from)).toBe(to));
});

/** A failing case per loaded case, at the line its loader recorded (as execute-case records it). */
function failingFrom(root: string, suiteRel: string): { path: string; cases: CaseResult[] } {
  const loaded = loadSuiteFile(path.join(root, suiteRel), new Workspace(root));
  expect(loaded.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return {
    path: suiteRel,
    cases: loaded.suite!.cases.map((c) => ({
      id: c.id,
      line: c.pos.line,
      ...(c.sourcePath ? { file: c.sourcePath } : {}),
      verdict: 'fail',
      score: 0.2,
      gating_violations: [],
      evaluators: [],
      target: 'default',
      answer: null,
      duration_ms: 1,
    })),
  };
}

test('annotations sit at the line of each case in YAML, JSONL and CSV suites, and at a failed gate’s bullet; paths from the repository root', () => {
  const repo = tmpDir('re-check-place-');
  const wd = path.join(repo, 'app');
  mkdirSync(path.join(wd, 'evals'), { recursive: true });
  writeFileSync(
    path.join(wd, 'evals/qa.yaml'),
    'evalcases:\n  - input: Two plus two?\n    expected_outcome: Says 4\n    id: add\n  - id: sub\n    input: Three minus one?\n    expected_outcome: Says 2\n',
  );
  writeFileSync(
    path.join(wd, 'evals/lines.jsonl'),
    '{"id": "j1", "input": "a", "expected_outcome": "b"}\n\n{"id": "j2", "input": "c", "expected_outcome": "d"}\n',
  );
  writeFileSync(
    path.join(wd, 'evals/cases.csv'),
    'question,__expected\nFrance?,contains:Paris\n"multi\nline",x\nSpain?,Madrid\n',
  );
  writeFileSync(path.join(wd, 'evals/pf.yaml'), 'prompts: ["Q: {{ question }}"]\ntests: file://cases.csv\n');
  writeFileSync(path.join(wd, 'RUBRIC.md'), '# Rubric\n\n## Gates\n\n- `npm test`\n- `npm run lint`\n');

  const suites = ['evals/qa.yaml', 'evals/lines.jsonl', 'evals/pf.yaml'].map((s) => failingFrom(wd, s));
  const { rubric: parsed } = rubricFromInput('RUBRIC.md', new Workspace(wd), wd);
  const rubric: CheckerResult = {
    path: parsed!.path,
    title: null,
    hash: 'h',
    verdict: 'fail',
    score: 0.5,
    gates: parsed!.gates.map((g, i) => ({
      command: g.command,
      line: g.line,
      verdict: i === 1 ? 'fail' : 'pass',
      exit_code: i === 1 ? 2 : 0,
      timed_out: false,
      duration_ms: 1,
      output: 'lint: 3 problems',
    })),
    checks: [],
    judge_verdict: null,
    feedback: null,
    counts: { gates_passed: 1, gates_total: 2, must_passed: 0, must_total: 0, nice_passed: 0, nice_total: 0 },
  };
  const results = resultsOf([], { suites: suites.map((s) => ({ ...s, description: null })), rubric });
  const { annotations, unannotated } = checkRunAnnotations(
    results,
    same,
    checkRunPlacement({ workingDirectory: wd }, repo),
  );
  expect(unannotated).toBe(0);
  const at = annotations.map((a) => `${a.title} ${a.path}:${a.start_line}-${a.end_line}`).sort();
  expect(at).toEqual(
    [
      'add app/evals/qa.yaml:4-4',
      'sub app/evals/qa.yaml:5-5',
      'j1 app/evals/lines.jsonl:1-1',
      'j2 app/evals/lines.jsonl:3-3',
      'test-1 app/evals/cases.csv:2-2',
      'test-2 app/evals/cases.csv:3-3',
      'test-3 app/evals/cases.csv:5-5',
      'gate: npm run lint app/RUBRIC.md:6-6',
    ].sort(),
  );
  expect(annotations.every((a) => a.annotation_level === 'failure')).toBe(true);
  expect(annotations.find((a) => a.title === 'gate: npm run lint')!.message).toBe(
    'exited 2\nlint: 3 problems',
  );
});

function manyFailing(n: number, reason = 'misses the point'): RunResults {
  const results = resultsOf(
    Array.from({ length: n }, (_, i) => ['evals/big.yaml', `case-${i}`, 'fail', 0.1] as const).map((r) => [
      ...r,
    ]),
  );
  for (const [i, c] of results.suites[0]!.cases.entries()) {
    c.line = 2 + i * 3;
    c.evaluators = [
      {
        name: 'rubric',
        type: 'llm_judge',
        weight: 1,
        score: 0.1,
        verdict: 'fail',
        mode: 'checklist',
        gating_violations: [],
        checks: [
          {
            id: 'rubric-1',
            text: 'Answers the question',
            satisfied: false,
            weight: 1,
            required: true,
            reasoning: reason,
          },
        ],
      },
    ];
  }
  return results;
}

test('at most 1,000 annotations; the summary says how many were not annotated', () => {
  const results = manyFailing(1_037);
  const { annotations, unannotated } = checkRunAnnotations(results, same, { repoPath: (p) => p });
  expect(annotations).toHaveLength(MAX_CHECK_ANNOTATIONS);
  expect(unannotated).toBe(37);
  const out = checkRunOutput(results, {
    runUrl: 'https://github.com/o/r/actions/runs/1',
    unannotated,
    reportFile: null,
    redact: same,
  });
  expect(out.summary).toContain('37 more failing cases or gates not annotated');
  expect(annotations[0]!.message).toBe(
    'failed (score 0.10)\n- rubric › rubric-1 "Answers the question" (required): misses the point',
  );
});

test("the output stays within GitHub's 65,535 characters and the title within 255, however large the run", () => {
  const results = manyFailing(4_000, 'x'.repeat(900));
  const out = checkRunOutput(results, {
    runUrl: null,
    unannotated: 3_000,
    reportFile: 'report.html',
    redact: same,
  });
  expect(out.text.length).toBeLessThanOrEqual(CHECK_TEXT_LIMIT);
  expect(out.summary.length).toBeLessThanOrEqual(CHECK_TEXT_LIMIT);
  expect(out.title.length).toBeLessThanOrEqual(255);
  expect(out.title).toBe('rubric-eval: fail · score 0.50 · 4000 failing');
  // The headline is the summary, not repeated in the text; the report file is named.
  expect(out.summary).toContain('rubric-eval: **fail**');
  expect(out.text).not.toContain('rubric-eval: **fail**');
  expect(out.summary).toContain("`report.html` in this run's artifacts");
});

test('annotation texts are redacted and inert: no mention, reference or bidi control survives', () => {
  const results = manyFailing(1, 'ask @octocat about #12, key sk-secret-123456 \u202e reversed');
  results.suites[0]!.cases[0]!.id = 'case @admin';
  const redact = (t: string) => t.replaceAll('sk-secret-123456', '***');
  const [a] = checkRunAnnotations(results, redact, { repoPath: (p) => p }).annotations;
  expect(a!.title).toBe('case @\u200dadmin');
  expect(a!.message).toContain('ask @\u200doctocat about #\u200d12, key *** ⟨U+202E⟩ reversed');
  expect(a!.message).not.toContain('sk-secret');
});

test('the conclusion: failure when the check fails, neutral under fail-on: never', () => {
  expect(checkConclusion(true, 'fail')).toBe('failure');
  expect(checkConclusion(false, 'fail')).toBe('success');
  expect(checkConclusion(true, 'never')).toBe('neutral');
  expect(checkConclusion(false, 'never')).toBe('neutral');
});
