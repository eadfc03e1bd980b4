import { bundleMismatches, parseBundle } from '../../src/pipeline/record-bundle.js';
import { recordBundle, recordedAnswer } from '../helpers/record-bundle.js';

const HEAD = 'a'.repeat(40);
const answer = (id: string, text: string | null = 'an answer') => recordedAnswer('evals/x.yaml', id, text);
const bundle = (over: Record<string, unknown> = {}) =>
  JSON.stringify({
    ...recordBundle({
      head_sha: HEAD,
      answers: [answer('a'), answer('b')],
      gates: [{ command: 'npm test', exit_code: 0, output: 'ok' }],
    }),
    ...over,
  });

test('a well-formed bundle parses, with fields a newer recorder adds ignored', () => {
  const r = parseBundle(bundle({ extra: { anything: true } }));
  expect('bundle' in r && r.bundle.answers.map((a) => a.id)).toEqual(['a', 'b']);
});

test.each([
  ['not JSON', '{', /not JSON/],
  ['another format', bundle({ record: 2 }), /record is not 1/],
  [
    'two answers for one case',
    bundle({ answers: [answer('a'), answer('a')] }),
    /two answers for case evals\/x.yaml#a/,
  ],
  [
    'two results for one gate',
    bundle({
      gates: [
        { command: 'g', exit_code: 0, output: '' },
        { command: 'g', exit_code: 1, output: '' },
      ],
    }),
    /two results for gate g/,
  ],
  [
    'an answer over the cap',
    bundle({ answers: [answer('a', 'x'.repeat(200_000))] }),
    /answers\.0\.answer is longer than/,
  ],
  ['a sha that is not one', bundle({ head_sha: '../../etc' }), /head_sha must be a commit sha/],
  ['a number for a text', bundle({ answers: [{ ...answer('a'), answer: 7 }] }), /answers\.0\.answer/],
])('%s is refused, named', (_n, text, why) => {
  const r = parseBundle(text);
  expect('errors' in r && r.errors.join('\n')).toMatch(why);
});

test('the bundle must agree with what GitHub says: repository, head commit, pull request', () => {
  const r = parseBundle(bundle());
  if (!('bundle' in r)) throw new Error('expected a bundle');
  expect(bundleMismatches(r.bundle, { repository: 'o/r', headSha: HEAD.toUpperCase(), prNumber: 4 })).toEqual(
    [],
  );
  expect(bundleMismatches(r.bundle, { repository: 'x/y', headSha: 'b'.repeat(40), prNumber: 5 })).toEqual([
    'the record bundle is for repository o/r, not x/y',
    `the record bundle is for commit ${HEAD}, but the run that uploaded it ran on ${'b'.repeat(40)}`,
    `the record bundle names pull request #4, but the run's commit bbbbbbb is the head of pull request #5`,
  ]);
});

test('a bundle nested past any the record stage writes is refused before anything walks it', () => {
  // Written as text: a value this deep would not survive JSON.stringify either.
  const deep = `${'['.repeat(5000)}"x"${']'.repeat(5000)}`;
  const text = bundle({ answers: [{ ...answer('a'), output_messages: ['DEEP'] }] }).replace('"DEEP"', deep);
  const r = parseBundle(text);
  expect('errors' in r && r.errors[0]).toMatch(
    /^the record bundle is nested past 200 levels at answers\.0\./,
  );
});

test("an OpenAI tool-calling answer's mark is kept, so the judge stage gives code its object as a single job does", () => {
  const message = { role: 'assistant', content: null, tool_calls: [] };
  const marked = { ...answer('a'), output_messages: [message], tool_output: true };
  const r = parseBundle(bundle({ answers: [marked, answer('b')] }));
  expect('bundle' in r && r.bundle.answers.map((a) => a.tool_output)).toEqual([true, undefined]);
  expect(parseBundle(bundle({ answers: [{ ...marked, tool_output: 'yes' }] }))).toEqual({
    errors: ["the record bundle's answers.0.tool_output Invalid input: expected boolean, received string"],
  });
});
