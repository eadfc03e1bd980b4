import path from 'node:path';
import { type AssertionContext, type Base } from './assertion-context.js';
import { numberAt, reportAt, splitNot } from './assertion-base.js';
import { measuredAssertion, textAssertion, trajectory } from './assertion-checks.js';
import { type Position } from '../../core/diagnostics.js';
import { parseRubricList } from '../rubric-items.js';
import { type EvaluatorConfig, type LlmJudgeConfig, TEXT_CHECKS, type TextCheck } from '../types.js';
import { readReferencedFile } from '../../core/user-file.js';
import { type PathSegment } from '../../core/yaml-source.js';
import { codeFields, isPromptfooType, llmRubricPrompt, promptfooAssertion } from './promptfoo-assertions.js';
import { compareAssertion } from './compare-assertions.js';
import { isRecord } from '../../core/is-record.js';

/**
 * AgentV 5 / promptfoo assertion names onto the internal evaluators: the one place where
 * `llm-rubric`, `script`, `assert-set` and `trajectory:*` meet `llm_judge`, `code_judge`,
 * `composite` and `tool_trajectory`.
 */

/** What plain-string criteria become: one checklist judge call per test, as AgentV groups them. */
const CRITERIA_EVALUATOR = 'criteria';

/** AgentV 5 takes a checklist judge's own stated `score` over its checks; promptfoo-shaped files keep the checks'. */
const statedScore = (ctx: AssertionContext): { statedScore?: true } =>
  ctx.flavour === 'promptfoo' ? {} : { statedScore: true };

/** Types AgentV 5 runs that this project does not, each with why (named at `validate`). */
const UNSUPPORTED_ASSERTIONS: Record<string, string> = {
  'agent-rubric': 'an agentic judge that drives an agent provider',
  'skill-used': 'needs agent skill traces',
  'not-skill-used': 'needs agent skill traces',
  'trajectory:step-count': 'not mapped yet',
  'trajectory:goal-success': 'not mapped yet',
  webhook: 'posts the answer to a web hook',
  'similar:dot': 'dot-product similarity (use `similar`, cosine)',
  'similar:euclidean': 'euclidean similarity (use `similar`, cosine)',
  'inline-assert': 'a TypeScript SDK function',
};

/** Every entry of a test's `assert` list; plain strings become one weighted checklist. */
export function mapAssertions(
  list: readonly unknown[],
  at: PathSegment[],
  ctx: AssertionContext,
): EvaluatorConfig[] {
  const out: EvaluatorConfig[] = [];
  const strings: string[] = [];
  let criteriaSlot = -1;
  list.forEach((item, i) => {
    if (typeof item === 'string') {
      if (item.trim() !== '') strings.push(ctx.render(item.trim()));
      if (criteriaSlot === -1) criteriaSlot = out.length;
      return;
    }
    const e = mapAssertion(item, [...at, i], ctx, i);
    if (e) out.push(e);
  });
  if (strings.length > 0) {
    // Weight = the number of criteria, so each string counts like one explicit assertion (AgentV 5).
    out.splice(
      criteriaSlot,
      0,
      checklistJudge(CRITERIA_EVALUATOR, strings, strings.length, ctx.doc.position(at), ctx),
    );
  }
  const seen = new Set<string>();
  for (const e of out) {
    if (seen.has(e.name) && ctx.flavour === 'promptfoo') e.name = uniqueName(e.name, seen);
    else if (seen.has(e.name))
      ctx.sink.error(
        e.pos,
        'duplicate-name',
        `assertion name '${e.name}' is used twice; set \`metric\``,
        ctx.subject,
      );
    seen.add(e.name);
  }
  return out;
}

/**
 * promptfoo groups assertions that share a `metric` into one named score: each stays its own
 * result here, numbered after the first. Applied to a test's whole list (defaultTest's and its
 * own), so no two of its results share a name.
 */
export function distinctNames(evaluators: readonly EvaluatorConfig[]): void {
  const seen = new Set<string>();
  for (const e of evaluators) {
    if (seen.has(e.name)) e.name = uniqueName(e.name, seen);
    seen.add(e.name);
  }
}

function uniqueName(name: string, seen: ReadonlySet<string>): string {
  for (let k = 2; ; k++) if (!seen.has(`${name} (${k})`)) return `${name} (${k})`;
}

function checklistJudge(
  name: string,
  outcomes: string[],
  weight: number,
  pos: Position,
  ctx: AssertionContext,
): LlmJudgeConfig {
  return {
    type: 'llm_judge',
    name,
    weight,
    pos,
    prompt: null,
    ...statedScore(ctx),
    rubrics: {
      mode: 'checklist',
      items: outcomes.map((outcome, i) => ({
        id: `criterion-${i + 1}`,
        outcome,
        weight: 1,
        required: false,
      })),
    },
  };
}

function mapAssertion(
  item: unknown,
  at: PathSegment[],
  ctx: AssertionContext,
  index: number,
): EvaluatorConfig | undefined {
  const { doc, sink, subject } = ctx;
  if (!isRecord(item) || typeof item.type !== 'string') {
    sink.error(
      doc.locate(at),
      'type',
      'an assertion is a string criterion or an object with `type`',
      subject,
    );
    return undefined;
  }
  const written = item.type;
  const { type, notPrefixed } = splitNot(written, (w) => UNSUPPORTED_ASSERTIONS[w] !== undefined);
  const base = assertionBase(item, written, notPrefixed, at, ctx, index);
  if (UNSUPPORTED_ASSERTIONS[written]) {
    sink.error(
      doc.locateKey([...at, 'type']),
      'unsupported-assertion',
      `assertion type '${written}' is not run by rubric-eval (${UNSUPPORTED_ASSERTIONS[written]})`,
      subject,
    );
    return undefined;
  }
  if (isPromptfooType(type)) return promptfooAssertion(type, notPrefixed, item, at, base, ctx);
  if (type === 'select-best' || type === 'max-score') {
    compareAssertion(type, notPrefixed, item, at, base.name, ctx);
    return undefined;
  }
  if ((TEXT_CHECKS as readonly string[]).includes(type))
    return textAssertion(type as TextCheck, item, at, base, ctx);
  switch (type) {
    case 'llm-rubric':
      return rubricJudge(item, at, base, ctx);
    case 'script':
      return scriptJudge(item, at, base, ctx);
    case 'assert-set':
      return assertSet(item, at, base, ctx);
    case 'trajectory:tool-used':
    case 'trajectory:tool-sequence':
    case 'trajectory:tool-args-match':
      return trajectory(type, item.value, at, base, ctx);
    case 'latency':
    case 'cost':
    case 'field-accuracy':
    case 'execution-metrics':
    case 'token-usage':
      return measuredAssertion(type, item, base);
  }
  sink.error(
    doc.locateKey([...at, 'type']),
    'unknown-assertion',
    `unknown assertion type '${written}' (AgentV 5 has no such built-in; custom assertion types are not run)`,
    subject,
  );
  return undefined;
}

/** The fields every assertion kind shares: its name, weight, negation and whether it gates the test. */
function assertionBase(
  item: Record<string, unknown>,
  written: string,
  notPrefixed: boolean,
  at: PathSegment[],
  ctx: AssertionContext,
  index: number,
): Base {
  const { doc, sink, subject } = ctx;
  const weight = typeof item.weight === 'number' ? item.weight : 1;
  if (!Number.isFinite(weight) || weight < 0)
    sink.error(
      doc.locate([...at, 'weight']),
      'weight',
      `weight ${String(item.weight)} must be a number >= 0`,
      subject,
    );
  const minScore = typeof item.min_score === 'number' ? item.min_score : null;
  if (typeof item.required === 'number')
    sink.error(
      doc.locate([...at, 'required']),
      'required',
      'use `required: true` with `min_score` (AgentV 5)',
      subject,
    );
  return {
    name:
      typeof item.metric === 'string'
        ? item.metric
        : typeof item.name === 'string'
          ? item.name
          : `${written}-${index + 1}`,
    weight,
    pos: doc.position(at),
    ...(item.negate === true || notPrefixed ? { negate: true } : {}),
    ...(item.required === true ? { required: true, minScore } : {}),
    ...codeFields(item, at, ctx),
    ...(ctx.flavour === 'promptfoo' ? { assertionType: written } : {}),
  };
}

function rubricJudge(
  item: Record<string, unknown>,
  at: PathSegment[],
  base: Base,
  ctx: AssertionContext,
): EvaluatorConfig | undefined {
  const { doc, sink, subject } = ctx;
  const suitePrompt = llmRubricPrompt(item, at, ctx);
  if (suitePrompt === undefined) return undefined;
  const v = item.value;
  if (suitePrompt !== null && (typeof v !== 'string' || v.trim() === '' || item.prompt !== undefined)) {
    sink.error(
      doc.locate(item.rubricPrompt !== undefined ? [...at, 'rubricPrompt'] : at),
      'unsupported-key',
      '`rubricPrompt` applies to an `llm-rubric` whose `value` is one rubric text (promptfoo); write the rubric as `value`',
      subject,
    );
    return undefined;
  }
  if (isRecord(item.prompt)) return promptScriptJudge(item.prompt, [...at, 'prompt'], base, ctx);
  if (typeof item.prompt === 'string') {
    const file = readFileRef(item.prompt, [...at, 'prompt'], ctx);
    if (!file) return undefined;
    return {
      ...base,
      type: 'llm_judge',
      rubrics: null,
      prompt: { path: ctx.ws.display(file.absPath), template: file.text },
    };
  }
  if (typeof v === 'string' && v.trim() !== '') {
    const threshold = numberAt(
      item.threshold ?? item.min_score,
      [...at, item.threshold !== undefined ? 'threshold' : 'min_score'],
      ctx,
      { fallback: null, range: 'unit', message: '`llm-rubric` threshold is a score between 0 and 1' },
    );
    if (threshold === undefined) return undefined;
    const rubricScore = {
      rubric: ctx.render(v),
      threshold,
      ...(suitePrompt !== null ? { prompt: { text: suitePrompt, vars: ctx.promptfoo?.vars ?? {} } } : {}),
    };
    return { ...base, type: 'llm_judge', rubrics: null, prompt: null, rubricScore };
  }
  const outcomes = Array.isArray(v) && v.every((x) => typeof x === 'string') ? v : null;
  // Without a value AgentV grades against the test's own description with its default template.
  if (v === undefined) return { ...base, type: 'llm_judge', rubrics: null, prompt: null };
  if (!outcomes && Array.isArray(v) && v.length > 0) {
    // Rubric objects ({id, outcome, weight, required, score_ranges}) are v2's rubric items.
    const rubrics = parseRubricList(v, {
      sink,
      locate: (p) => doc.locate([...at, 'value', ...p]),
      locateKey: (p) => doc.locateKey([...at, 'value', ...p]),
    });
    if (!rubrics) return undefined;
    const stated = rubrics.mode === 'checklist' ? statedScore(ctx) : {};
    return { ...base, type: 'llm_judge', rubrics, prompt: null, ...stated };
  }
  if (!outcomes || outcomes.length === 0)
    return reportAt(
      ctx,
      [...at, 'value'],
      'value',
      '`llm-rubric` needs `value` (a criterion, a list of criteria or rubric objects) or `prompt: file://...`',
    );
  return { ...checklistJudge(base.name, outcomes.map(ctx.render), base.weight, base.pos, ctx), ...base };
}

/** `prompt: {command: [argv], config?}`: the script prints the grader prompt (its file must exist). */
function promptScriptJudge(
  prompt: Record<string, unknown>,
  at: PathSegment[],
  base: Base,
  ctx: AssertionContext,
): EvaluatorConfig | undefined {
  const argv =
    typeof prompt.command === 'string' ? prompt.command.split(/\s+/) : (prompt.command as string[]);
  const last = argv.length - 1;
  const file = readFileRef(
    argv[last]!,
    [...at, 'command', ...(Array.isArray(prompt.command) ? [last] : [])],
    ctx,
  );
  if (!file) return undefined;
  const config = isRecord(prompt.config) ? prompt.config : null;
  const promptScript = {
    command: [...argv.slice(0, -1), file.absPath],
    cwd: path.dirname(file.absPath),
    config,
  };
  return { ...base, type: 'llm_judge', rubrics: null, prompt: null, promptScript };
}

function readFileRef(
  value: string,
  at: PathSegment[],
  ctx: AssertionContext,
): { absPath: string; text: string } | undefined {
  const ref = value.startsWith('file://') ? value.slice('file://'.length) : value;
  return readReferencedFile(
    ctx.ws,
    ref,
    ctx.dir,
    (rule, message) => ctx.sink.error(ctx.doc.locate(at), rule, message, ctx.subject),
    value,
  );
}

function scriptJudge(
  item: Record<string, unknown>,
  at: PathSegment[],
  base: Base,
  ctx: AssertionContext,
): EvaluatorConfig | undefined {
  const command = item.command ?? item.script ?? item.value;
  const ok =
    typeof command === 'string'
      ? command.trim() !== ''
      : Array.isArray(command) && command.length > 0 && command.every((c) => typeof c === 'string');
  if (!ok)
    return reportAt(ctx, at, 'required', '`script` needs `command` (an argv list or a command string)');
  const cwd = typeof item.cwd === 'string' ? path.resolve(ctx.dir, item.cwd) : ctx.dir;
  if (!ctx.ws.contains(cwd)) {
    ctx.sink.error(
      ctx.doc.locate([...at, 'cwd']),
      'escapes-workspace',
      `cwd '${String(item.cwd)}' is outside the workspace`,
      ctx.subject,
    );
    return undefined;
  }
  const {
    type: _t,
    command: _c,
    script: _s,
    value: _v,
    cwd: _w,
    weight: _wt,
    metric: _m,
    name: _n,
    required: _r,
    negate: _g,
    min_score: _ms,
    ...config
  } = item;
  return { ...base, type: 'code_judge', command: command as string | string[], cwd, config };
}

function assertSet(
  item: Record<string, unknown>,
  at: PathSegment[],
  base: Base,
  ctx: AssertionContext,
): EvaluatorConfig | undefined {
  if (!Array.isArray(item.assert) || item.assert.length === 0)
    return reportAt(ctx, at, 'required', '`assert-set` needs a non-empty `assert` list');
  const threshold = numberAt(item.threshold, [...at, 'threshold'], ctx, {
    fallback: null,
    range: 'unit',
    message: '`assert-set` threshold is a score between 0 and 1',
  });
  if (threshold === undefined) return undefined;
  const children = mapAssertions(item.assert, [...at, 'assert'], ctx);
  const weights = Object.fromEntries(children.map((c) => [c.name, c.weight]));
  // Its children are given the transformed answer each; the set itself transforms nothing.
  const { transforms: _t, ...own } = base;
  return {
    ...own,
    type: 'composite',
    children,
    aggregator: { type: 'weighted_average', weights },
    assertSet: { threshold },
  };
}
