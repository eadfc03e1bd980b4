import { type EvaluatorResult } from '../core/results.js';
import { type ExecDeps } from '../exec/deps.js';
import { type ScriptCall } from '../exec/script-runners.js';
import { renderContent } from '../suite/messages.js';
import { type CodeAssertionConfig, type CodeSource, type EvalCase } from '../suite/types.js';
import { gradeScriptValue } from './code-result.js';
import { type CandidateAnswer } from './candidate-answer.js';
import { callScript } from './script-batch.js';

/**
 * promptfoo `javascript` / `python` assertions: the suite's code, run where gates run (see
 * script-batch.ts), given the answer as `output` and promptfoo's `context` (vars, prompt, test,
 * config; `logProbs` undefined: no target here reports them).
 */

/** The prompt as promptfoo hands it to code: the one message's text, else the messages as JSON. */
export function promptText(c: Pick<EvalCase, 'inputMessages'>): string {
  const m = c.inputMessages;
  if (m.length === 1) return renderContent(m[0]!.parts);
  return JSON.stringify(m.map((x) => ({ role: x.role, content: renderContent(x.parts) })));
}

/** The answer as code sees it: what a transform made of it, else its text. */
export const outputValue = (a: CandidateAnswer): unknown => (a.value !== undefined ? a.value : a.text);

/** A single-line JavaScript expression as a function body (promptfoo: `return` before the last statement). */
export function javascriptBody(code: string): string {
  const text = code.trimEnd();
  if (text.includes('\n')) return text;
  const trimmed = text.trim().replace(/;+\s*$/, '');
  if (!/^(const|let|var)\s/.test(trimmed)) return `return ${trimmed}`;
  const semi = lastTopLevelSemicolon(trimmed);
  if (semi === -1 || trimmed.slice(semi + 1).trim() === '') return trimmed;
  return `${trimmed.slice(0, semi + 1)} return ${trimmed.slice(semi + 1).trim()}`;
}

/** The last `;` outside strings, template literals, comments and brackets; -1 when none. */
function lastTopLevelSemicolon(code: string): number {
  let depth = 0;
  let last = -1;
  for (let i = 0; i < code.length; i++) {
    const ch = code[i]!;
    if (ch === '"' || ch === "'" || ch === '`') {
      i = closingQuote(code, i);
      continue;
    }
    if (ch === '/' && code[i + 1] === '/') break;
    if ('([{'.includes(ch)) depth++;
    else if (')]}'.includes(ch)) depth--;
    else if (ch === ';' && depth === 0) last = i;
  }
  return last;
}

function closingQuote(code: string, open: number): number {
  const q = code[open]!;
  for (let i = open + 1; i < code.length; i++) {
    if (code[i] === '\\') i++;
    else if (code[i] === q) return i;
  }
  return code.length;
}

/** Inline Python as a module defining `main(output, context)` (promptfoo's wrapping). */
export function pythonModule(code: string): string {
  const text = code.trimEnd();
  if (!text.includes('\n')) return `import json\n\ndef main(output, context):\n    return ${text.trim()}\n`;
  const indent = /^(?!\s*$)[ \t]+/m.exec(text)?.[0] ?? '    ';
  const body = text
    .split('\n')
    .map((l) => `${indent}${l}`)
    .join('\n');
  return `import json\n\ndef main(output, context):\n${body}\n`;
}

/** The runner's call for a source: its body or file, with the function a file is asked for. */
export function scriptCall(
  source: CodeSource,
  output: unknown,
  context: unknown,
  defaultPythonFn: string,
): ScriptCall {
  const { file } = source;
  if (file)
    return {
      body: null,
      file: file.absPath,
      fn: file.fn,
      ...(source.language === 'python' ? { defaultFn: defaultPythonFn } : {}),
      output,
      context,
    };
  const code = source.code ?? '';
  const body = source.language === 'javascript' ? javascriptBody(code) : pythonModule(code);
  return { body, file: null, fn: null, output, context };
}

/** promptfoo's `context` for an assertion: vars, prompt, test and the assertion's own config. */
function assertionContext(
  config: CodeAssertionConfig,
  c: EvalCase,
  answer: CandidateAnswer,
): Record<string, unknown> {
  const ctx = config.codeContext;
  return {
    prompt: promptText(c),
    vars: ctx.vars,
    test: ctx.test,
    ...(config.config ? { config: config.config } : {}),
    providerResponse: { output: outputValue(answer) },
  };
}

export async function runCodeAssertion(
  config: CodeAssertionConfig,
  c: EvalCase,
  answer: CandidateAnswer,
  exec: ExecDeps,
): Promise<EvaluatorResult> {
  const { language, file } = config.source;
  const base = {
    name: config.name,
    type: 'code_assertion' as const,
    weight: config.weight,
    gating_violations: [],
    ...(config.threshold !== null ? { threshold: config.threshold } : {}),
  };
  const call = scriptCall(
    config.source,
    outputValue(answer),
    assertionContext(config, c, answer),
    'get_assert',
  );
  let r;
  try {
    r = await callScript(c, language, config.codeContext.cwd, call, exec);
  } catch (err) {
    return { ...base, score: 0, verdict: 'error', error: (err as Error).message };
  }
  if (!r.ok) {
    // promptfoo: inline code and Python that throw fail the assertion; a JavaScript file that
    // throws makes the test an error.
    const reason = `${language === 'python' ? 'Python code execution failed' : 'Custom function threw error'}: ${r.error}`;
    if (file && language === 'javascript')
      return { ...base, score: 0, verdict: 'error', error: `${file.path}: ${r.error}` };
    return { ...base, score: 0, verdict: 'fail', reasoning: reason, misses: [reason] };
  }
  const g = gradeScriptValue(r.value, language, config.inverse, config.threshold);
  const score = Math.min(1, Math.max(0, g.score));
  const shown = score === g.score ? g.reason : `${g.reason} (returned score ${g.score}, shown as ${score})`;
  return {
    ...base,
    score,
    verdict: g.pass ? 'pass' : 'fail',
    reasoning: shown,
    hits: g.pass ? [shown] : [],
    misses: g.pass ? [] : [shown],
  };
}
