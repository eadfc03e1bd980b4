import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { type FakeArtifact, type FakePull } from '../../__fixtures__/servers/github-server.mjs';
import { startOpenAIServer } from '../../__fixtures__/servers/openai-server.mjs';

/**
 * The trusted stage's fixtures (the README's trusted stage): the fork's pull request and the run that
 * recorded it, the base branch's checkout, and record bundles and artifacts as the Actions API
 * serves them.
 */

export const HEAD = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';
export const BASE = 'ffeeddccbbaa00998877665544332211ffeeddcc';
const RUN_ID = 555;
export const JUDGE_KEY = 'sk-trusted-judge-key-1234';
const TOKEN = 'ghs_trusted_token_5678';

/** The judge meets a base criterion only for answers saying GOOD; the PR's weakened one always. */
export const strictJudge = () =>
  startOpenAIServer({
    respond: ({ desc }) => {
      if (desc.mode !== 'checklist') return undefined;
      const weakened = desc.text.includes('Answers politely');
      return {
        checks: desc.ids.map((id) => ({
          id,
          satisfied: weakened || desc.text.includes('GOOD'),
          reasoning: 'as judged',
        })),
        overall_reasoning: 'judged',
      };
    },
  });

/** The judge stage's inputs, judged by the server at `judgeUrl`. */
export const judgeInputs = (judgeUrl: string) => ({
  stage: 'judge',
  suites: 'evals/*.yaml',
  rubric: 'RUBRIC.md',
  'judge-base-url': judgeUrl,
  'judge-api-key': JUDGE_KEY,
  'github-token': TOKEN,
});

/** A script that leaves a marker file when it runs, then prints `said`. */
export function markerScript(file: string, marker: string, said: string): void {
  writeFileSync(
    file,
    `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, 'ran');\nconst id = process.argv[2] ?? '';\nconsole.log(${JSON.stringify(said)}.replace('ID', id));\n`,
  );
}

/** The base branch's checkout: strict suites, a rubric whose gate would leave a marker if run. */
export function baseCheckout(root: string, markers: string): string {
  const base = path.join(root, 'base');
  mkdirSync(path.join(base, 'evals'), { recursive: true });
  writeFileSync(
    path.join(base, 'evals/support.yaml'),
    [
      'evalcases:',
      '  - id: refund',
      '    input: How do I get a refund?',
      '    rubrics: [Cites the 30-day refund policy]',
      '  - id: reset',
      '    input: How do I reset my password?',
      '    rubrics: [Says the reset link expires after 15 minutes]',
      '',
    ].join('\n'),
  );
  // The base's own target: never called by the judge stage (the answers are the bundle's).
  markerScript(path.join(base, 'answer.mjs'), path.join(markers, 'base-target'), 'base answer');
  writeFileSync(
    path.join(base, 'targets.yaml'),
    'targets:\n  - name: default\n    provider: cli\n    command_template: node answer.mjs {EVAL_ID}\n',
  );
  markerScript(path.join(base, 'gate.mjs'), path.join(markers, 'base-gate'), 'base gate');
  writeFileSync(
    path.join(base, 'RUBRIC.md'),
    '# Support\n\n## Gates\n- `node gate.mjs`\n\n## Criteria\n- The change keeps the refund flow documented\n',
  );
  return base;
}

export const PR: FakePull = {
  number: 12,
  title: 'Better answers',
  body: 'Improves the answers',
  head: { sha: HEAD, ref: 'feature', label: 'forker:feature', repo: { full_name: 'forker/repo' } },
  base: { sha: BASE, ref: 'main' },
  diff: 'diff --git a/evals/support.yaml b/evals/support.yaml\n',
  files: [{ filename: 'evals/support.yaml', status: 'modified', additions: 3, deletions: 2 }],
  // A fork's commit: GitHub does not list it under commits/{sha}/pulls; found by head instead.
  linked: false,
};

/** Another fork's pull request from a branch of the same name, at another commit. */
export const DECOY: FakePull = {
  number: 11,
  title: 'Decoy',
  body: null,
  head: { sha: '0'.repeat(40), ref: 'feature', label: 'forker:feature', repo: { full_name: 'forker/repo' } },
  base: { sha: BASE, ref: 'main' },
};

export const workflowRunEvent = (conclusion = 'success') => ({
  action: 'completed',
  workflow_run: {
    id: RUN_ID,
    head_sha: HEAD,
    head_branch: 'feature',
    head_repository: { full_name: 'forker/repo', owner: { login: 'forker' } },
    conclusion,
    event: 'pull_request',
    pull_requests: [],
  },
});

export const zipOf = (text: string | Uint8Array) =>
  zipSync({ 'rubric-eval-record.json': typeof text === 'string' ? strToU8(text) : text }, { level: 1 });

export function recordArtifact(
  zip: Uint8Array | undefined,
  name = 'rubric-eval-record',
  id = 901,
): FakeArtifact[] {
  if (!zip) return [];
  return [
    {
      id,
      name,
      expired: false,
      created_at: new Date().toISOString(),
      workflow_run: {
        id: RUN_ID,
        repository_id: 1,
        head_repository_id: 2,
        head_branch: 'feature',
        head_sha: HEAD,
      },
      zip,
    },
  ];
}

/** A valid bundle for the base's two cases, written by hand (a hostile run can write anything). */
export function bundle(over: Record<string, unknown> = {}): Record<string, unknown> {
  const answer = (id: string, text: string) => ({
    suite: 'evals/support.yaml',
    id,
    answer: text,
    target: 'default',
    duration_ms: 5,
    usage: null,
    error: null,
  });
  return {
    record: 1,
    repository: 'octo/repo',
    pr_number: 12,
    head_sha: HEAD,
    base_sha: BASE,
    plan_hash: 'x',
    answers: [answer('refund', 'GOOD: within 30 days'), answer('reset', 'GOOD: 15 minutes')],
    gates: [{ command: 'node gate.mjs', exit_code: 0, output: 'ok' }],
    ...over,
  };
}
