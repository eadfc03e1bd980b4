#!/usr/bin/env node
// Dev check: the promptfoo-shaped examples under examples/promptfoo/parity/ run by promptfoo
// itself and by rubric-eval (dist/cli.js), both against the same local fake model and grader,
// must give the same pass/fail per test and the same score within 0.01.
//
//   PROMPTFOO_DIR=/tmp/pf node scripts/promptfoo-parity.mjs [feature ...]
//
// PROMPTFOO_DIR is a folder where `npm install promptfoo` was run (outside this project: it must
// never enter package.json). Without it the check is skipped with a message (exit 0).
//
// The fake model answers a prompt holding `Reply with: <text>` with <text>; the fake grader
// recognises each prompt family (llm-rubric, factuality, g-eval, ...) as each tool words it and
// answers the same decision, read from markers in the examples, in that tool's format:
// __fixtures__/servers/promptfoo-parity-grader.mjs (a new family is one function there).
// Embeddings are each text's bag of words, so chosen pairs have known cosines. A model given
// tools answers a prompt holding `Call: <name> <arguments>` with that call.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bagOfWords } from '../__fixtures__/servers/openai-server.mjs';
import { fakeReply } from '../__fixtures__/servers/promptfoo-parity-grader.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const EXAMPLES = path.join(ROOT, 'examples/promptfoo/parity');
const TOLERANCE = 0.01;

function promptfooBin() {
  const dir = process.env.PROMPTFOO_DIR;
  const bin = dir && path.join(dir, 'node_modules/.bin/promptfoo');
  return bin && existsSync(bin) ? bin : null;
}

/** The text of every message of a chat request, or a Responses API `input`. */
function requestText(body) {
  const list = body.messages ?? (Array.isArray(body.input) ? body.input : [{ content: body.input ?? '' }]);
  return list
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? '')))
    .join('\n');
}

/** `/v1/embeddings`: each text as its bag of words, so chosen pairs have known cosines. */
function embeddings(body) {
  const inputs = Array.isArray(body.input) ? body.input : [body.input];
  return {
    object: 'list',
    model: body.model,
    data: inputs.map((t, index) => ({ object: 'embedding', index, embedding: bagOfWords(String(t)) })),
    usage: { prompt_tokens: 5, total_tokens: 5 },
  };
}

/** The Responses API's shape around a reply. */
function responsesBody(body, content) {
  return {
    id: 'resp_1',
    object: 'response',
    status: 'completed',
    model: body.model,
    output: [
      {
        type: 'message',
        id: 'msg_1',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: content, annotations: [] }],
      },
    ],
    usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
  };
}

/** `Call: <name> <arguments>` to a model given tools (functions): that call is its answer; else null. */
function toolCallReply(url, body, text) {
  const call = /^Call: (\S+) (.*)$/m.exec(text);
  if (!call || !(body.tools || body.functions)) return null;
  const fn = { name: call[1], arguments: call[2] };
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
  if (url.endsWith('/responses'))
    return {
      id: 'resp_1',
      object: 'response',
      status: 'completed',
      model: body.model,
      output: [{ type: 'function_call', id: 'fc_1', call_id: 'call_1', status: 'completed', ...fn }],
      usage,
    };
  const message = body.functions
    ? { role: 'assistant', content: null, function_call: fn }
    : { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: fn }] };
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 0,
    model: body.model,
    usage,
    choices: [{ index: 0, message, finish_reason: 'tool_calls' }],
  };
}

/** The fake OpenAI-compatible endpoint: Chat Completions, the Responses API and embeddings. */
function startServer() {
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = raw ? JSON.parse(raw) : {};
      res.setHeader('content-type', 'application/json');
      if (req.url.endsWith('/embeddings')) return res.end(JSON.stringify(embeddings(body)));
      const text = requestText(body);
      const called = toolCallReply(req.url, body, text);
      if (called) return res.end(JSON.stringify(called));
      const content = fakeReply(text);
      if (req.url.endsWith('/responses')) return res.end(JSON.stringify(responsesBody(body, content)));
      res.end(
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 0,
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
        }),
      );
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** A child run without blocking this process: the fake endpoint must keep answering meanwhile. */
function run(cmd, args, opts) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeout);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function env(url, home) {
  return {
    PATH: process.env.PATH,
    HOME: home,
    OPENAI_API_KEY: 'sk-parity-check-key-0123456789',
    // rubric-eval's judge has a key of its own: the one in OPENAI_API_KEY is the targets'.
    RUBRIC_EVAL_JUDGE_API_KEY: 'sk-parity-judge-key-0123456789',
    OPENAI_BASE_URL: url,
    PROMPTFOO_CONFIG_DIR: path.join(home, '.promptfoo'),
    PROMPTFOO_DISABLE_TELEMETRY: '1',
    PROMPTFOO_DISABLE_UPDATE: '1',
    PROMPTFOO_DISABLE_SHARING: '1',
    PROMPTFOO_CACHE_ENABLED: 'false',
  };
}

/** promptfoo's results: per test (its index), prompt (its index) and provider (label, else id). */
async function runPromptfoo(bin, dir, url, home) {
  const out = path.join(home, 'promptfoo.json');
  const r = await run(
    bin,
    ['eval', '-c', 'promptfooconfig.yaml', '--no-cache', '--no-table', '--no-write', '-o', out, '-j', '1'],
    { cwd: dir, env: env(url, home), timeout: 300_000 },
  );
  if (!existsSync(out)) throw new Error(`promptfoo wrote no results: ${r.stderr || r.stdout}`);
  const results = JSON.parse(readFileSync(out, 'utf8')).results.results;
  return new Map(
    results.map((x) => [
      `${x.testIdx + 1}|${x.prompt.label || x.promptIdx + 1}|${x.provider.label || x.provider.id}`,
      { pass: x.success, score: x.score, error: x.error ?? null, why: x.gradingResult?.reason ?? '' },
    ]),
  );
}

/** rubric-eval's results keyed alike: test-N, prompt-M, the provider's target name. */
async function runRubricEval(dir, url, home) {
  const out = path.join(home, 'rubric-eval.json');
  await run(
    process.execPath,
    [
      path.join(ROOT, 'dist/cli.js'),
      'run',
      'promptfooconfig.yaml',
      '--judge-base-url',
      url,
      '--judge-model',
      'grader',
      '--no-cache',
      '--out',
      out,
      '--fail-on',
      'never',
    ],
    { cwd: dir, env: env(url, home), timeout: 300_000 },
  );
  if (!existsSync(out)) throw new Error(`rubric-eval wrote no results in ${dir}`);
  const results = JSON.parse(readFileSync(out, 'utf8'));
  if (results.errors?.length) throw new Error(results.errors.map((e) => e.message ?? e).join('; '));
  const suite = results.suites[0];
  return new Map(
    suite.cases.map((c) => {
      const m = /^test-(\d+)(?:__prompt_(.+?))?(?:__provider_(.+))?$/.exec(c.id);
      const key = m ? `${m[1]}|${m[2] ?? 1}|${m[3] ?? c.target}` : c.id;
      const off = (c.evaluators ?? []).find((e) => e.error || e.verdict !== 'pass');
      const why = off ? (off.error ?? off.misses?.[0] ?? off.reasoning ?? '') : '';
      return [key, { pass: c.verdict === 'pass', score: c.score, error: c.error ?? null, why }];
    }),
  );
}

/**
 * Differences kept on purpose, each explained in docs/promptfoo.md or docs/promptfoo-assertions.md:
 * `<feature> <test number>` and why. They are reported, and do not fail the check.
 */
const EXPECTED_DIFFERENCES = {
  'csv 3': 'a CSV `llm-rubric(0.7):` keeps its threshold here; promptfoo 0.121 drops it (docs/promptfoo.md)',
};

/** One side's outcome for the report. */
function outcome(r) {
  if (!r) return 'no result';
  const why = r.error ?? (r.pass ? '' : r.why);
  return `${r.pass ? 'pass' : 'fail'} ${r.score.toFixed(2)}${why ? ` (${String(why).replace(/\s+/g, ' ').slice(0, 140)})` : ''}`;
}

/** One prompt (or provider) on each side is compared without its name (promptfoo names a bare
 * prompt by its text and a provider by its own id; rubric-eval by prompt-N and the label). */
function withoutSingles(pf, re) {
  for (const part of [1, 2]) {
    const single = (m) => new Set([...m.keys()].map((k) => k.split('|')[part])).size === 1;
    if (!single(pf) || !single(re)) continue;
    const strip = (m) =>
      new Map(
        [...m].map(([k, v]) => [
          k
            .split('|')
            .map((x, i) => (i === part ? '*' : x))
            .join('|'),
          v,
        ]),
      );
    [pf, re] = [strip(pf), strip(re)];
  }
  return [pf, re];
}

const bin = promptfooBin();
if (!bin) {
  console.log('promptfoo parity: skipped (set PROMPTFOO_DIR to a folder where `npm install promptfoo` ran)');
  process.exit(0);
}
if (!existsSync(path.join(ROOT, 'dist/cli.js'))) {
  console.log('promptfoo parity: build dist/ first (npm run package)');
  process.exit(1);
}
const only = process.argv.slice(2);
const features = readdirSync(EXAMPLES).filter((f) => only.length === 0 || only.includes(f));
const server = await startServer();
const url = `http://127.0.0.1:${server.address().port}/v1`;
const lines = [];
const differences = [];
const expected = [];
let [agree, total] = [0, 0];
for (const feature of features.sort()) {
  const dir = path.join(EXAMPLES, feature);
  const home = mkdtempSync(path.join(os.tmpdir(), `pf-parity-${feature}-`));
  let pf;
  let re;
  try {
    [pf, re] = withoutSingles(
      ...(await Promise.all([runPromptfoo(bin, dir, url, home), runRubricEval(dir, url, home)])),
    );
  } catch (err) {
    differences.push(`${feature}: not compared: ${err.message.slice(0, 300)}`);
    continue;
  }
  let same = 0;
  const keys = new Set([...pf.keys(), ...re.keys()]);
  for (const key of keys) {
    const [a, b] = [pf.get(key), re.get(key)];
    if (a && b && a.pass === b.pass && Math.abs(a.score - b.score) <= TOLERANCE) {
      same++;
      continue;
    }
    const line = `${feature} ${key}: promptfoo ${outcome(a)}; rubric-eval ${outcome(b)}`;
    const why = EXPECTED_DIFFERENCES[`${feature} ${key.split('|')[0]}`];
    if (why) expected.push(`${line}\n      expected: ${why}`);
    else differences.push(line);
  }
  lines.push(`  ${feature}: ${same} of ${keys.size}`);
  [agree, total] = [agree + same, total + keys.size];
}
server.close();
console.log(`promptfoo parity: ${agree} of ${total} tests agree (${features.length} configs)`);
for (const l of lines) console.log(l);
for (const d of expected) console.log(`  differs as expected: ${d}`);
for (const d of differences) console.log(`  differs: ${d}`);
process.exit(differences.length === 0 ? 0 : 1);
