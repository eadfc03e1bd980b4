import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT } from '../helpers/paths.js';
// @ts-expect-error: a plain ESM script without types, used by the release workflow
import { releaseNotes } from '../../scripts/release-notes.mjs';

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  if?: string;
}
interface Job {
  steps: Step[];
  permissions?: Record<string, string>;
  if?: string;
}
interface Workflow {
  on: Record<string, unknown>;
  jobs: Record<string, Job>;
  permissions?: Record<string, string>;
}

const dir = path.join(REPO_ROOT, '.github/workflows');
const read = (name: string) => readFileSync(path.join(REPO_ROOT, name), 'utf8');
const workflows = Object.fromEntries(
  readdirSync(dir).map((f) => [f, parse(readFileSync(path.join(dir, f), 'utf8')) as Workflow]),
);
const steps = (w: Workflow) => Object.values(w.jobs).flatMap((j) => j.steps);

function readmeTestCommand(): string {
  const firstBlock = /```bash\n([\s\S]*?)```/.exec(read('README.md'))![1]!;
  return firstBlock
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))[1]!;
}

test('the four workflows are there and every one parses with jobs and steps', () => {
  expect(Object.keys(workflows).sort()).toEqual(['check-dist.yml', 'ci.yml', 'release.yml', 'self-test.yml']);
  for (const w of Object.values(workflows)) {
    expect(Object.keys(w.jobs).length).toBeGreaterThan(0);
    for (const job of Object.values(w.jobs)) expect(job.steps.length).toBeGreaterThan(0);
  }
});

test('ci runs on push and pull_request, on Node 20 and 24, with the README test command verbatim', () => {
  const ci = workflows['ci.yml']!;
  expect(Object.keys(ci.on).sort()).toEqual(['pull_request', 'push']);
  const runs = steps(ci).map((s) => s.run);
  expect(runs).toContain(readmeTestCommand());
  expect(readmeTestCommand()).toBe('npm ci && npm test');
  // npm test is the fast set (jest.config.js): CI runs the slow one too.
  expect(runs).toContain('npm run test:slow');
  for (const needed of ['npm run lint', 'npm run format:check', 'npx tsc --noEmit -p tsconfig.json'])
    expect(runs).toContain(needed);
  expect(runs.some((r) => r?.includes('bench.mjs --quick'))).toBe(true);
  expect(read('.github/workflows/ci.yml')).toMatch(/node: \[20, 24\]/);
  expect(read('.ci/run')).toMatch(/^npm ci /m);
});

test('check-dist rebuilds dist/ and schema/, fails on a difference and uploads the expected files', () => {
  const s = steps(workflows['check-dist.yml']!);
  expect(s.some((x) => x.run?.includes('npm run package') && x.run.includes('npm run schema'))).toBe(true);
  expect(
    s.some((x) => x.run?.includes('git status --porcelain -- dist schema') && /exit 1/.test(x.run)),
  ).toBe(true);
  const upload = s.find((x) => x.uses?.startsWith('actions/upload-artifact@'));
  expect(upload?.if).toMatch(/failure\(\)/);
});

test('self-test runs the action from the repository, with GitHub Models and with the recorded judge', () => {
  const w = workflows['self-test.yml']!;
  expect(Object.keys(w.on)).toEqual(['pull_request']);
  const models = w.jobs['github-models']!;
  expect(models.steps.some((x) => x.uses === './')).toBe(true);
  expect(models.permissions).toMatchObject({ models: 'read', 'pull-requests': 'write' });
  const recorded = w.jobs.recorded!;
  expect(recorded.steps.some((x) => x.run?.includes('npm run --silent demo'))).toBe(true);
  expect(recorded.if).toBeUndefined();
});

test('release runs on version tags, checks dist/, publishes notes from CHANGELOG.md and moves the major tag', () => {
  const w = workflows['release.yml']!;
  expect(w.on).toEqual({ push: { tags: ['v*.*.*'] } });
  expect(w.permissions).toEqual({ contents: 'write' });
  const runs = steps(w).map((s) => s.run ?? '');
  expect(runs.some((r) => r.includes('npm run package'))).toBe(true);
  expect(runs.some((r) => r.includes('release-notes.mjs'))).toBe(true);
  expect(runs.some((r) => r.includes('gh release create'))).toBe(true);
  expect(runs.some((r) => /git tag -f "\$major"/.test(r))).toBe(true);
  const notes = releaseNotes(read('CHANGELOG.md'), read('package.json').match(/"version": "([^"]+)"/)![1]!);
  expect(notes).toMatch(/### Added/);
  expect(releaseNotes(read('CHANGELOG.md'), '99.0.0')).toBeNull();
});

test('every action from another repository is pinned to a version; dependabot keeps npm and actions current', () => {
  const uses = Object.values(workflows)
    .flatMap(steps)
    .map((s) => s.uses)
    .filter((u): u is string => !!u && u !== './');
  expect(uses.length).toBeGreaterThan(0);
  for (const u of uses) expect(u).toMatch(/^[\w.-]+\/[\w.-]+(\/[\w./-]+)?@(v\d+(\.\d+){0,2}|[0-9a-f]{40})$/);
  const dependabot = parse(read('.github/dependabot.yml')) as { updates: { 'package-ecosystem': string }[] };
  expect(dependabot.updates.map((u) => u['package-ecosystem']).sort()).toEqual(['github-actions', 'npm']);
});

test('the repository has its changelog, security policy and contributing guide', () => {
  expect(read('CHANGELOG.md')).toMatch(/## \[Unreleased\]/);
  expect(read('SECURITY.md')).toMatch(/pull_request_target/);
  expect(read('CONTRIBUTING.md')).toContain('npm ci && npm test');
});
