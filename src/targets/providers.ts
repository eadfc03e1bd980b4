import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { readCapped } from '../exec/output-buffer.js';
import { type CommandResult, describeExit, runCommand, STDOUT_LIMIT } from '../exec/run-command.js';
import { type Redactor } from '../exec/redact.js';
import { ChatCaller, type EndpointConfig, type ToolParams } from '../judge/chat.js';
import { toolAnswer } from './openai-output.js';
import { type AdaptiveLimiter } from '../exec/limiter.js';
import { type ChatMessage } from '../judge/prompts.js';
import { type RetryPolicy } from '../judge/retry.js';
import { filesOf, renderContent } from '../suite/messages.js';
import { fillTemplate } from '../core/template.js';
import { type EvalCase } from '../suite/types.js';
import { parseCliOutput } from './cli-output.js';
import { TargetAnswerCache } from './answer-cache.js';
import { type JudgeCache } from '../judge/cache.js';
import { RubricEvalError } from '../core/errors.js';

export interface TargetAnswer {
  text: string;
  outputMessages: unknown[] | null;
  promptTokens: number | null;
  completionTokens: number | null;
  cachedTokens?: number | null;
  costUsd: number | null;
  /** The call's duration as the target reported it, else as measured; null when nothing ran. */
  durationMs: number | null;
  /** The model that answered, when rubric-eval called it (prices its tokens for `budget-usd`). */
  model?: string;
  /**
   * Set when an OpenAI model that was sent tools answered with a tool-calling message (its one
   * output message): code and the tool-call assertions are given promptfoo's object for it. A CLI
   * target's or answers file's messages are a trace, never read so.
   */
  toolOutput?: true;
}

export interface TargetRunner {
  name: string;
  provider: string;
  healthcheck(): Promise<void>;
  /** `repeat` (1-based): which of a repeated case's answers this is (README "Repeats"). */
  answer(c: EvalCase, attempt: number, repeat?: number): Promise<TargetAnswer>;
  /** Batching targets learn their cases up front: they answer all of them in one run. */
  enlist?(c: EvalCase): void;
}

/** A target could not answer a case: the case is `error`, the other cases go on. */
export class TargetError extends RubricEvalError {
  override name = 'TargetError';
}

export interface RunnerDeps {
  limiter: AdaptiveLimiter;
  redactor: Redactor;
  childEnv: NodeJS.ProcessEnv;
  /** Per model call (judge-timeout). */
  modelTimeoutMs: number;
  /** Default per CLI command when the target gives no timeout_seconds (gate-timeout). */
  commandTimeoutMs: number;
  retry?: RetryPolicy;
  signal?: AbortSignal;
  warn?: (message: string) => void;
  /** Where a model target keeps the answers of repeated cases (the judge's cache; README "Repeats"). */
  answerCache?: JudgeCache;
}

export const MockSettings = z
  .looseObject({ response: z.string().optional(), responses: z.record(z.string(), z.string()).optional() })
  .refine((s) => s.response !== undefined || s.responses !== undefined, {
    error: 'a mock target needs `response` or `responses`',
  });

const HealthcheckSettings = z.looseObject({
  type: z.string().optional(),
  command_template: z.string({ error: 'healthcheck.command_template must be a string' }),
  cwd: z.string().optional(),
  timeout_seconds: z.number().positive().optional(),
});

export const CliSettings = z.looseObject({
  command_template: z.string({ error: 'a cli target needs command_template' }).min(1),
  files_format: z.string().optional(),
  cwd: z.string().optional(),
  timeout_seconds: z.number({ error: 'timeout_seconds must be a number' }).positive().optional(),
  healthcheck: HealthcheckSettings.optional(),
  provider_batching: z.boolean({ error: 'provider_batching must be true or false' }).optional().meta({
    description: 'Run the command once for all cases; it writes JSONL records with `id` to {OUTPUT_FILE}.',
  }),
});

export const OpenAISettings = z.looseObject({
  endpoint: z.string().optional(),
  base_url: z.string().optional(),
  api_key: z.string({ error: 'an openai target needs api_key' }),
  model: z.string({ error: 'an openai target needs model' }),
  temperature: z.number().optional(),
  max_output_tokens: z.number().int().positive().optional(),
  base_url_env: z.array(z.string()).optional().meta({
    description:
      'Variables whose first one set (in the environment a gate gets) is the base URL when neither endpoint nor base_url is given (promptfoo reads OPENAI_BASE_URL, OPENAI_API_BASE_URL).',
  }),
  api: z.enum(['chat', 'responses'], { error: 'api is chat or responses' }).optional().meta({
    description: "Chat Completions (default) or OpenAI's Responses API.",
  }),
  tools: z
    .array(z.record(z.string(), z.unknown()), { error: 'tools is a list of tool definitions' })
    .optional()
    .meta({ description: 'Tools the model may call (OpenAI format); its answer is then its tool calls.' }),
  tool_choice: z
    .union([z.string(), z.record(z.string(), z.unknown())], { error: 'tool_choice is a string or a mapping' })
    .optional(),
  functions: z
    .array(z.record(z.string(), z.unknown()), { error: 'functions is a list of function definitions' })
    .optional()
    .meta({ description: "OpenAI's legacy function calling (Chat Completions only)." }),
  function_call: z
    .union([z.string(), z.record(z.string(), z.unknown())], {
      error: 'function_call is a string or a mapping',
    })
    .optional(),
});

export const AzureSettings = z
  .looseObject({
    endpoint: z.string({ error: 'an azure target needs endpoint' }),
    api_key: z.string({ error: 'an azure target needs api_key' }),
    model: z.string().optional(),
    deployment: z.string().optional(),
    version: z.string().optional(),
    temperature: z.number().optional(),
    max_output_tokens: z.number().int().positive().optional(),
  })
  .refine((s) => s.model !== undefined || s.deployment !== undefined, {
    error: 'an azure target needs model (the deployment name)',
  });

/** Keys each supported provider reads, beside the common ones: the typo check of targets.yaml. */
export const PROVIDER_KEYS: Readonly<Record<string, ReadonlySet<string>>> = {
  mock: new Set(Object.keys(MockSettings.shape)),
  echo: new Set(),
  cli: new Set(Object.keys(CliSettings.shape)),
  openai: new Set(Object.keys(OpenAISettings.shape)),
  azure: new Set(Object.keys(AzureSettings.shape)),
  'azure-openai': new Set(Object.keys(AzureSettings.shape)),
};
export const HEALTHCHECK_KEYS: ReadonlySet<string> = new Set(Object.keys(HealthcheckSettings.shape));

export const AZURE_DEFAULT_API_VERSION = '2024-12-01-preview';

export function mockRunner(name: string, s: z.infer<typeof MockSettings>): TargetRunner {
  return {
    name,
    provider: 'mock',
    healthcheck: async () => {},
    answer: async (c) => {
      const text = s.responses?.[c.id] ?? s.response;
      if (text === undefined)
        throw new TargetError(`mock target '${name}' has no response for case '${c.id}'`);
      return fixedAnswer(text);
    },
  };
}

/**
 * promptfoo's `echo` provider: the answer is the rendered prompt, the text of a lone message,
 * else the messages as JSON (promptfoo echoes its rendered chat prompt, which is JSON).
 */
export function echoRunner(name: string): TargetRunner {
  return {
    name,
    provider: 'echo',
    healthcheck: async () => {},
    answer: async (c) => {
      const messages = chatMessages(c);
      const only = messages.length === 1 ? messages[0] : undefined;
      return fixedAnswer(only ? only.content : JSON.stringify(messages));
    },
  };
}

/** An answer known in advance (mock targets, recorded answers): no usage, no time. */
export function fixedAnswer(text: string): TargetAnswer {
  return {
    text,
    outputMessages: null,
    promptTokens: null,
    completionTokens: null,
    costUsd: null,
    durationMs: null,
  };
}

/** POSIX shell quoting: the value is one word, whatever it contains. */
function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The prompt a CLI target receives: the input's text, with attachments named (their paths go in {FILES}). */
function cliPrompt(c: EvalCase): string {
  const parts: string[] = [];
  for (const m of c.inputMessages) {
    for (const p of m.parts)
      parts.push(p.type === 'text' ? p.text : `<file: path="${path.basename(p.file.path)}">`);
  }
  return parts.join('\n\n');
}

export function renderCommandTemplate(
  template: string,
  values: {
    prompt: string;
    files: string[];
    filesFormat: string;
    evalId: string;
    attempt: number;
    outputFile: string;
    /** Which answer of a repeated case (README "Repeats"); 1 without repeats. */
    repeat?: number;
  },
): string {
  const files = values.files
    .map((f) => fillTemplate(values.filesFormat, /\{(path)\}/g, () => shellQuote(f)))
    .join(' ');
  const filled: Record<string, string> = {
    PROMPT: shellQuote(values.prompt),
    FILES: files,
    EVAL_ID: shellQuote(values.evalId),
    ATTEMPT: shellQuote(String(values.attempt)),
    OUTPUT_FILE: shellQuote(values.outputFile),
    REPEAT: shellQuote(String(values.repeat ?? 1)),
  };
  return fillTemplate(template, /\{([A-Z_]+)\}/g, (name) =>
    Object.hasOwn(filled, name) ? filled[name] : undefined,
  );
}

export function cliRunner(
  name: string,
  s: z.infer<typeof CliSettings>,
  targetsDir: string,
  deps: RunnerDeps,
): TargetRunner {
  const cwd = path.resolve(targetsDir, s.cwd ?? '.');
  const timeoutMs = s.timeout_seconds !== undefined ? s.timeout_seconds * 1000 : deps.commandTimeoutMs;
  const usesOutputFile = s.command_template.includes('{OUTPUT_FILE}');
  const run = (command: string, dir: string, ms: number) =>
    runCommand({
      command,
      cwd: dir,
      timeoutMs: ms,
      env: deps.childEnv,
      redactor: deps.redactor,
      signal: deps.signal,
    });
  const failure = (what: string, r: CommandResult, ms: number) =>
    new TargetError(`${what} ${describeExit(r, ms)}${r.output.trim() ? `:\n${tailOf(r.output, 1500)}` : ''}`);

  return {
    name,
    provider: 'cli',
    healthcheck: async () => {
      if (!s.healthcheck) return;
      const hc = s.healthcheck;
      const ms = hc.timeout_seconds !== undefined ? hc.timeout_seconds * 1000 : Math.min(timeoutMs, 60_000);
      const r = await run(hc.command_template, path.resolve(targetsDir, hc.cwd ?? s.cwd ?? '.'), ms);
      if (r.exitCode !== 0) throw failure(`healthcheck of target '${name}'`, r, ms);
    },
    answer: async (c, attempt, repeat) => {
      const scratch = mkdtempSync(path.join(os.tmpdir(), 'rubric-eval-cli-'));
      const outputFile = path.join(scratch, 'output.json');
      try {
        const command = renderCommandTemplate(s.command_template, {
          prompt: cliPrompt(c),
          files: filesOf(c.inputMessages).map((f) => f.absPath),
          filesFormat: s.files_format ?? '{path}',
          evalId: c.id,
          attempt,
          outputFile,
          repeat,
        });
        const r = await deps.limiter.run(() => run(command, cwd, timeoutMs), deps.signal);
        if (r.exitCode !== 0) throw failure(`target '${name}'`, r, timeoutMs);
        let raw: string;
        if (usesOutputFile) {
          try {
            raw = readCapped(outputFile, STDOUT_LIMIT, deps.redactor.stream()).text;
          } catch (err) {
            throw new TargetError(
              `target '${name}' exited 0 but wrote no readable {OUTPUT_FILE} (${(err as Error).message})${r.output.trim() ? `:\n${tailOf(r.output, 1500)}` : ''}`,
              { cause: err },
            );
          }
        } else raw = r.stdout;
        const parsed = parseCliOutput(raw);
        return { ...parsed, durationMs: parsed.durationMs ?? r.durationMs };
      } finally {
        rmSync(scratch, { recursive: true, force: true });
      }
    },
  };
}

/** The case's input as chat messages: files inlined as `<file path="...">` blocks. */
function chatMessages(c: EvalCase): ChatMessage[] {
  return c.inputMessages.map((m) => ({
    role: m.role === 'system' || m.role === 'assistant' ? m.role : 'user',
    content: renderContent(m.parts),
  }));
}

export function modelRunner(
  name: string,
  provider: 'openai' | 'azure',
  endpoint: EndpointConfig,
  options: { temperature?: number; maxTokens?: number; tools?: ToolParams },
  deps: RunnerDeps,
): TargetRunner {
  const chat = new ChatCaller(endpoint, deps.limiter, deps.retry, deps.signal, deps.warn);
  const { tools } = options;
  // An answer with tool calls is a message, not a text: the cache of repeats keeps texts only.
  const cache = deps.answerCache && !tools ? new TargetAnswerCache(deps.answerCache, endpoint) : null;
  return {
    name,
    provider,
    healthcheck: async () => {},
    answer: async (c, _attempt, repeat) => {
      const started = Date.now();
      const call = {
        messages: chatMessages(c),
        temperature: options.temperature,
        maxTokens: options.maxTokens,
        ...(tools ? { tools } : {}),
      };
      // Only a repeated case's answers are cached: one answer per case is asked afresh, as always.
      const cached = repeat !== undefined ? cache?.get(call, repeat) : undefined;
      if (cached)
        return {
          ...fixedAnswer(cached.text),
          promptTokens: cached.promptTokens,
          completionTokens: cached.completionTokens,
        };
      try {
        const r = await chat.create(call);
        if (repeat !== undefined)
          cache?.set(call, repeat, {
            text: r.content,
            promptTokens: r.promptTokens,
            completionTokens: r.completionTokens,
          });
        const out = tools ? toolAnswer(r) : { text: r.content, outputMessages: null };
        return {
          ...out,
          promptTokens: r.promptTokens,
          completionTokens: r.completionTokens,
          costUsd: null,
          durationMs: Date.now() - started,
          model: endpoint.azure?.deployment ?? endpoint.model,
        };
      } catch (err) {
        throw new TargetError(`target '${name}': ${(err as Error).message}`, { cause: err });
      }
    },
  };
}

function tailOf(text: string, max: number): string {
  const t = text.trimEnd();
  return t.length <= max ? t : `…${t.slice(-max)}`;
}
