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
// The fake model answers a prompt holding `Reply with: <text>` with <text> (JSON escapes read,
// so `\n` is a newline); the fake grader reads the rubric (rubric-eval's `[[ ## rubric ## ]]`
// section, promptfoo's `<Rubric>`) and answers {reason, pass, score}: `score:<s>` in the rubric
// sets the score (default 1), the word `fail` makes pass false. A model given tools answers a
// prompt holding `Call: <name> <arguments>` with that call.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

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

function grade(text) {
  const rubric =
    /\[\[ ## rubric ## \]\]\n([\s\S]*)$/.exec(text)?.[1] ??
    // promptfoo's grader prompt shows example rubrics first: the last <Rubric> is the one asked.
    [...text.matchAll(/<Rubric>([\s\S]*?)<\/Rubric>/g)].at(-1)?.[1] ??
    '';
  const score = Number(/score:([0-9.]+)/.exec(rubric)?.[1] ?? '1');
  return { reason: `rubric scored ${score}`, pass: !/\bfail\b/.test(rubric), score };
}

function answer(text) {
  const m = /Reply with: (.*)$/m.exec(text);
  if (!m) return 'no instruction';
  try {
    return JSON.parse(`"${m[1]}"`);
  } catch {
    return m[1];
  }
}

/** The fake OpenAI-compatible endpoint: Chat Completions and the Responses API. */
function startServer() {
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = raw ? JSON.parse(raw) : {};
      const text = requestText(body);
      const graded = !/Reply with: /.test(text) || /\[\[ ## rubric ## \]\]|<Rubric>/.test(text);
      const content = graded ? JSON.stringify(grade(text)) : answer(text);
      const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
      res.setHeader('content-type', 'application/json');
      // `Call: <name> <arguments>` to a model given tools (functions): that call is its answer.
      const call = /^Call: (\S+) (.*)$/m.exec(text);
      const fn = call && { name: call[1], arguments: call[2] };
      if (fn && (body.tools || body.functions)) {
        const item = req.url.endsWith('/responses')
          ? { type: 'function_call', id: 'fc_1', call_id: 'call_1', status: 'completed', ...fn }
          : null;
        const message = body.functions
          ? { role: 'assistant', content: null, function_call: fn }
          : {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: 'call_1', type: 'function', function: fn }],
            };
        res.end(
          JSON.stringify(
            item
              ? {
                  id: 'resp_1',
                  object: 'response',
                  status: 'completed',
                  model: body.model,
                  output: [item],
                  usage,
                }
              : {
                  id: 'chatcmpl-1',
                  object: 'chat.completion',
                  created: 0,
                  model: body.model,
                  usage,
                  choices: [{ index: 0, message, finish_reason: 'tool_calls' }],
                },
          ),
        );
        return;
      }
      if (req.url.endsWith('/responses')) {
        res.end(
          JSON.stringify({
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
          }),
        );
        return;
      }
      res.end(
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 0,
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
          usage,
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
      { pass: x.success, score: x.score, error: x.error ?? null },
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
      return [key, { pass: c.verdict === 'pass', score: c.score, error: c.error ?? null }];
    }),
  );
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
let agree = 0;
let total = 0;
const differences = [];
for (const feature of features.sort()) {
  const dir = path.join(EXAMPLES, feature);
  const home = mkdtempSync(path.join(os.tmpdir(), `pf-parity-${feature}-`));
  let pf;
  let re;
  try {
    [pf, re] = await Promise.all([runPromptfoo(bin, dir, url, home), runRubricEval(dir, url, home)]);
  } catch (err) {
    differences.push(`${feature}: not compared: ${err.message.slice(0, 300)}`);
    continue;
  }
  // One prompt (or provider) on each side: compared without it (promptfoo names a bare prompt by
  // its text and a provider by its own id; rubric-eval by prompt-N and the label).
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
  for (const key of new Set([...pf.keys(), ...re.keys()])) {
    total++;
    const a = pf.get(key);
    const b = re.get(key);
    const same = a && b && a.pass === b.pass && Math.abs(a.score - b.score) <= TOLERANCE;
    if (same) agree++;
    else
      differences.push(
        `${feature} ${key}: promptfoo ${a ? `${a.pass ? 'pass' : 'fail'} ${a.score.toFixed(2)}` : 'no result'}, rubric-eval ${b ? `${b.pass ? 'pass' : 'fail'} ${b.score.toFixed(2)}${b.error ? ` (${b.error})` : ''}` : 'no result'}`,
      );
  }
}
server.close();
console.log(`promptfoo parity: ${agree} of ${total} tests agree (${features.length} configs)`);
for (const d of differences) console.log(`  differs: ${d}`);
process.exit(differences.length === 0 ? 0 : 1);
