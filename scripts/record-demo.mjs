// Records the judge answers of the offline demo into examples/recorded-judge/ (the cache format),
// so `npm run demo` runs the whole pipeline with no network and no key. The "judge" here is a
// scripted stand-in that answers what a careful grader answers for these fixed inputs; re-run
// this after changing prompts, suites or the demo app: `npm run package && npm run demo:record`.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startOpenAIServer } from '../__fixtures__/servers/openai-server.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const dir = path.join(root, 'examples/recorded-judge');
const MODEL = 'recorded-demo-judge';
const PORT = 41170;

// Per rubric id: [satisfied or score, reasoning].
const CHECKS = {
  'refund-window': [true, 'States the 30-day refund window explicitly.'],
  'how-to-request': [true, 'Gives the path Billing → Invoices → "Request refund".'],
  polite: [true, 'Apologises and offers further help.'],
  'rubric-1': [true, 'Points to "Forgot password" on the sign-in page and the emailed link.'],
  'rubric-2': [false, 'Never mentions that the reset link expires, let alone after 15 minutes.'],
  'no-support-ticket': [true, 'Keeps the customer in the self-service flow.'],
  accuracy: [8, 'Gives the exact window (09:12-09:47 UTC) and the cause (failed database failover).'],
  empathy: [5, 'Opens with "We are sorry" but does not acknowledge the customer\'s disruption.'],
};
const TICKET = {
  'rubric-1': [true, 'Says PDF invoice export is broken since the 2.3 update.'],
  'rubric-2': [true, 'Names both the CSV workaround and ticket BILL-482.'],
};
const MARKDOWN = {
  'must-1': [true, 'REFUND_WINDOW_DAYS = 30 and the message quotes it.'],
  'must-2': [true, 'The idempotency key is the invoice id, so a second request returns the first refund.'],
  'must-3': [true, 'BillingError is caught and turned into a friendly retry message.'],
  'nice-1': [true, "requestRefund and REFUND_WINDOW_DAYS match the module's camelCase / UPPER_CASE style."],
  'nice-2': [false, 'Tests cover the window but not the duplicate-request case.'],
};

const server = await startOpenAIServer({
  // A fixed port: the cache key includes the endpoint, so replay must name the same one.
  port: PORT,
  respond: ({ desc }) => {
    const ticket = desc.text.includes('on-call engineer');
    if (desc.mode === 'checklist') {
      const table = ticket ? TICKET : CHECKS;
      return {
        checks: desc.ids.map((id) => ({
          id,
          reasoning: table[id]?.[1] ?? 'Satisfied.',
          satisfied: table[id]?.[0] ?? true,
        })),
        overall_reasoning: ticket
          ? 'A tight, useful summary.'
          : desc.ids.every((id) => (table[id]?.[0] ?? true) === true)
            ? 'Meets every item.'
            : 'Misses a required item.',
      };
    }
    if (desc.mode === 'score_range') {
      return {
        checks: desc.ids.map((id) => ({ id, reasoning: CHECKS[id][1], score: CHECKS[id][0] })),
        overall_reasoning: 'Accurate but formulaic.',
      };
    }
    if (desc.mode === 'markdown') {
      return {
        checks: desc.ids.map((id) => ({ id, reasoning: MARKDOWN[id][1], satisfied: MARKDOWN[id][0] })),
        feedback: 'All must-haves hold. Consider adding a test for the duplicate-request case.',
        verdict: 'accept',
      };
    }
    if (desc.mode === 'freeform') {
      return {
        reasoning: 'Friendly and concrete; "Thanks for your patience" fits the PDF fix.',
        hits: ['Leads with the version', 'Concrete numbers (3x)'],
        misses: ['"Highlights" list could be bullets'],
        score: 0.85,
      };
    }
    return undefined;
  },
});
for (const entry of readdirSync(dir))
  if (/^[0-9a-f]{2}$/.test(entry)) rmSync(path.join(dir, entry), { recursive: true });
mkdirSync(dir, { recursive: true });
// Asynchronous: the scripted judge answers from this same process.
const r = await promisify(execFile)(
  process.execPath,
  [
    'dist/cli.js',
    'run',
    'examples/evals/*.yaml',
    '--rubric',
    'examples/RUBRIC.md',
    '--diff',
    'examples/pr.diff',
    '--judge-base-url',
    `http://127.0.0.1:${PORT}/v1`,
    '--judge-model',
    MODEL,
    '--cache-dir',
    'examples/recorded-judge',
    '--fail-on',
    'never',
  ],
  { cwd: root, env: { ...process.env, RUBRIC_EVAL_JUDGE_API_KEY: 'recording' } },
).catch((err) => err);
await server.close();
process.stdout.write(r.stdout);
process.stderr.write(r.stderr);
writeFileSync(
  path.join(dir, 'meta.json'),
  JSON.stringify(
    {
      note: 'RECORDED judge answers for the offline demo; not a live model.',
      base_url: `http://127.0.0.1:${PORT}/v1`,
      model: MODEL,
    },
    null,
    2,
  ) + '\n',
);
process.exit(r.code ? 1 : 0);
