import { randomBytes } from 'node:crypto';
import { type CommandResult, runCommand } from './run-command.js';
import { type ExecDeps } from './deps.js';

/**
 * The suite's own code (promptfoo `javascript` / `python` assertions and transforms) runs in a
 * child process like a gate: `runCommand` (its own process group, the gate's environment, the
 * gate's timeout, bounded and redacted output, reaped at exit). One process runs a batch of
 * calls; every input reaches it as JSON on stdin, never as code: the runner below is fixed text,
 * and the suite's code is data to it until it compiles it.
 */

/** One call of a suite function: inline source (a function body) or a file and its export. */
export interface ScriptCall {
  /** Inline code: a JavaScript function body over (`output`, `context`, `process`); Python: a module defining `main(output, context)`. */
  body: string | null;
  /** An absolute path, and the function it exports (null: the default export / `get_assert`). */
  file: string | null;
  fn: string | null;
  /** Python files: the function looked up when `fn` is null. */
  defaultFn?: string;
  output: unknown;
  context: unknown;
}

/** What one call returned (as JSON), or what it threw. */
export type ScriptReturn = { ok: true; value: unknown; undef?: boolean } | { ok: false; error: string };

/**
 * The marker of the runner's result line, new for every batch: the calls' data (a PR's answer
 * among it) is printed by user code at will, so a fixed marker could be forged by an answer that
 * carries it. The runner gets the marker on stdin and keeps it out of the suite's code's reach.
 */
function batchMark(): string {
  return `\u0000RUBRIC_EVAL_RESULTS_${randomBytes(16).toString('hex')}\u0000`;
}

/**
 * The JavaScript runner: reads the calls, runs each in order (awaiting promises), prints one result
 * line and exits (a timer the suite's code left behind does not keep it alive).
 */
const JS_RUNNER = `
const url = require('node:url');
const { readFileSync } = require('node:fs');
const Module = require('node:module');
const nodePath = require('node:path');
// Inline code may require modules (promptfoo gives it a require through its process shim).
globalThis.require = require;
// \`node -e\` makes module, exports, __filename and __dirname globals (\`module\` falls back to the
// node:module builtin): a CommonJS file read as an ES module would assign to them unnoticed. Here
// they are not defined, as in an ES module, so such a file fails to import and loads as CommonJS.
// (Done once \`-e\`'s own code has run: node puts its \`module\` back then.)
function hideEvalGlobals() {
  for (const g of ['module', 'exports', '__filename', '__dirname'])
    Object.defineProperty(globalThis, g, {
      configurable: true,
      get() { throw new ReferenceError(g + ' is not defined'); },
    });
}
const CJS_IN_ESM = /(require|module|exports|__dirname|__filename) is not defined|Cannot use import statement|ERR_REQUIRE_ESM/;
/** A .js file: imported, else (CommonJS in an ES module scope, as promptfoo falls back) compiled as CommonJS. */
async function load(file) {
  try {
    return await import(url.pathToFileURL(file).href);
  } catch (e) {
    if (!file.endsWith('.js') || !CJS_IN_ESM.test(String(e && e.message))) throw e;
    const m = new Module(file, null);
    m.filename = file;
    m.paths = Module._nodeModulePaths(nodePath.dirname(file));
    m._compile(readFileSync(file, 'utf8'), file);
    const e2 = m.exports;
    return Object.assign({}, e2 !== null && (typeof e2 === 'object' || typeof e2 === 'function') ? e2 : {}, { default: e2 });
  }
}
const chunks = [];
process.stdin.on('data', (c) => chunks.push(c));
process.stdin.on('end', async () => {
  hideEvalGlobals();
  const input = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  const mark = input.mark;
  const calls = input.calls;
  chunks.length = 0;
  const out = [];
  for (const call of calls) {
    try {
      let fn;
      if (call.file) {
        const mod = await load(call.file);
        const named = call.fn && Object.prototype.hasOwnProperty.call(mod, call.fn) ? mod[call.fn] : undefined;
        fn = typeof named === 'function' ? named
          : call.fn ? undefined
          : typeof mod.default === 'function' ? mod.default
          : mod.default && typeof mod.default.default === 'function' ? mod.default.default : undefined;
        if (typeof fn !== 'function')
          throw new Error(call.fn ? 'it exports no function ' + JSON.stringify(call.fn) : 'it has no default export that is a function');
      } else {
        fn = new Function('output', 'context', 'process', call.body);
      }
      const value = await fn(call.output, call.context, process);
      out.push({ ok: true, value: value === undefined ? null : value, undef: value === undefined });
    } catch (e) {
      out.push({ ok: false, error: String((e && e.stack) || e) });
    }
  }
  let text;
  try { text = JSON.stringify(out); } catch (e) { text = JSON.stringify(out.map(() => ({ ok: false, error: 'the result is not JSON: ' + e.message }))); }
  process.stdout.write('\\n' + mark + text + '\\n', () => process.exit(0));
});
`;

/** The Python runner: the same protocol; an inline body becomes a function over (output, context). */
const PY_RUNNER = `
import importlib.util, json, os, sys, traceback, dataclasses
# The suite's modules are imported from the checkout: no __pycache__ is written into it.
sys.dont_write_bytecode = True
_input = json.loads(sys.stdin.buffer.read().decode('utf-8'))
_mark = _input['mark']
calls = _input['calls']
del _input
def plain(v):
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        return dataclasses.asdict(v)
    if hasattr(v, '__dict__') and not isinstance(v, (str, int, float, bool, list, dict)):
        return {k: x for k, x in vars(v).items() if not k.startswith('_')}
    return str(v)
out = []
for call in calls:
    try:
        if call.get('file'):
            path = call['file']
            sys.path.insert(0, os.path.dirname(path))
            spec = importlib.util.spec_from_file_location('suite_module', path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            name = call.get('fn') or call.get('defaultFn') or 'get_assert'
            fn = getattr(mod, name, None)
            if not callable(fn):
                raise Exception('%s defines no function %s' % (os.path.basename(path), name))
        else:
            scope = {}
            exec(compile(call['body'], '<inline python>', 'exec'), scope)
            fn = scope['main']
        value = fn(call.get('output'), call.get('context'))
        json.dumps(value, default=plain)
        out.append({'ok': True, 'value': value})
    except BaseException as e:
        out.append({'ok': False, 'error': ''.join(traceback.format_exception_only(type(e), e)).strip()})
sys.stdout.flush()
sys.stdout.write('\\n' + _mark + json.dumps(out, default=plain) + '\\n')
sys.stdout.flush()
os._exit(0)
`;

/** The program that runs a language's runner: this Node for JavaScript, `python3` for Python. */
function runnerCommand(language: 'javascript' | 'python'): string[] {
  return language === 'javascript' ? [process.execPath, '-e', JS_RUNNER] : ['python3', '-c', PY_RUNNER];
}

/** A batch that produced no result per call: why (timeout, crash, missing interpreter). */
export class ScriptBatchError extends Error {
  override name = 'ScriptBatchError';
  constructor(
    message: string,
    readonly result: CommandResult | null,
  ) {
    super(message);
  }
}

/** Runs the calls in one child process, under the limits of a gate; one result per call, in order. */
export async function runScripts(
  language: 'javascript' | 'python',
  calls: readonly ScriptCall[],
  cwd: string,
  deps: ExecDeps,
  describe: (r: CommandResult) => string,
): Promise<ScriptReturn[]> {
  const mark = batchMark();
  const r = await deps.processLimiter.run(
    () =>
      runCommand({
        command: runnerCommand(language),
        cwd,
        timeoutMs: deps.commandTimeoutMs,
        env: deps.childEnv,
        stdin: JSON.stringify({ mark, calls }),
        redactor: deps.redactor,
        signal: deps.signal,
        stdoutLimit: 4 * 1024 * 1024,
      }),
    deps.signal,
  );
  const at = r.stdout.indexOf(mark);
  // Only a runner that finished (exit 0) printed its line; a second marker means the line is not its own.
  if (
    r.spawnError ||
    r.timedOut ||
    r.cancelled ||
    r.signal ||
    r.exitCode !== 0 ||
    at === -1 ||
    r.stdoutOverflowed
  )
    throw new ScriptBatchError(describe(r), r);
  if (r.stdout.indexOf(mark, at + 1) !== -1)
    throw new ScriptBatchError('the runner printed its result line more than once', r);
  const line = r.stdout.slice(at + mark.length).split('\n', 1)[0]!;
  let parsed: ScriptReturn[];
  try {
    parsed = JSON.parse(line) as ScriptReturn[];
  } catch {
    throw new ScriptBatchError("the runner's result line is not JSON", r);
  }
  if (!Array.isArray(parsed) || parsed.length !== calls.length)
    throw new ScriptBatchError('the runner answered a different number of calls', r);
  return parsed;
}
