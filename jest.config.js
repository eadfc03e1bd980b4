/**
 * jest in ESM mode: ts-jest compiles each file, `.js` suffixes of relative imports are stripped.
 *
 * Two sets, so a newcomer's `npm test` takes minutes, not ten: the default is the unit tests plus
 * the end-to-end tests of `dist/` that matter most (the action, `__tests__/e2e/action.test.ts`,
 * and the CLI, `cli.test.ts`); `npm run test:slow` is the rest: every other run of `dist/` end to
 * end (`e2e/`, the hostile-PR runs in `security/`) and the long simulations. CI runs both
 * (`RUBRIC_EVAL_TESTS=all`). Test files named on the command line always run, whatever their set.
 */
const SLOW = [
  '/__tests__/e2e/(?!(action|cli)\\.test\\.ts$)',
  '/__tests__/security/(?!surface-render\\.test\\.ts$)',
  '/__tests__/reliability/',
  '/__tests__/evaluators/repeat-simulation\\.test\\.ts$',
  // Real waits: the sticky comment looks again 0.7 s and 2 s after each write.
  '/__tests__/github/sticky-comment\\.test\\.ts$',
];

const named = process.argv.slice(2).some((a) => !a.startsWith('-') && /__tests__|\.test\.ts$/.test(a));
const set = process.env.RUBRIC_EVAL_TESTS || (named ? 'all' : 'fast');
if (!['fast', 'slow', 'all'].includes(set))
  throw new Error(`RUBRIC_EVAL_TESTS=${set}: expected fast, slow or all`);

export default {
  preset: 'ts-jest/presets/default-esm',
  testEnvironment: 'node',
  roots: ['<rootDir>/__tests__'],
  testMatch: ['**/*.test.ts'],
  testPathIgnorePatterns: [
    '/node_modules/',
    ...{ fast: SLOW, slow: [`^(?!.*(${SLOW.join('|')}))`], all: [] }[set],
  ],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': [
      'ts-jest',
      { useESM: true, tsconfig: 'tsconfig.json', diagnostics: { ignoreCodes: [151002] } },
    ],
  },
  testTimeout: 30000,
  maxWorkers: 2,
};
