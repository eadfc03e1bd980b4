import { existsSync } from 'node:fs';
import path from 'node:path';
import { type Diagnostic, DiagnosticSink, excerpt, type Position } from '../core/diagnostics.js';
import { parseRubricList } from './rubric-items.js';
import {
  type ConfigNote,
  deterministicConfig,
  type DeterministicType,
  isDeterministicType,
} from './deterministic-configs.js';
import { parseGitHubBlobUrl } from './github-url.js';
import { isGuidelineFile, textMessage } from './messages.js';
import {
  EvalCaseSchema,
  EvalSuiteSchema,
  KNOWN_AGGREGATOR_KEYS,
  KNOWN_CASE_KEYS,
  KNOWN_EXECUTION_KEYS,
  KNOWN_MESSAGE_KEYS,
  KNOWN_PART_KEYS,
  KNOWN_SUITE_KEYS,
  knownEvaluatorKeys,
  MessageSchema,
  OPEN_EVALUATOR_TYPES,
  type RawCase,
  type RawEvaluator,
  type RawMessage,
} from './schema.js';
import { scriptFileArgs } from './script-files.js';
import { dropShadowedAliases, messagesShape } from './shorthand.js';
import { checkUnknownKeys } from '../core/unknown-keys.js';
import {
  type AggregatorConfig,
  type ContentPart,
  type EvalCase,
  type EvalSuite,
  type EvaluatorConfig,
  type FileAttachment,
  INLINE_RUBRIC_EVALUATOR,
  type Message,
  type PromptScript,
  type PromptTemplate,
} from './types.js';
import { isTestsFormat, loadTestsSuite } from './tests-format.js';
import { readReferencedFile, readUserFile } from '../core/user-file.js';
import { type Workspace } from '../core/workspace.js';
import { tooDeepOffset } from '../core/nesting.js';
import {
  type PathSegment,
  parseYamlSource,
  type SourceDocument,
  tooDeepMessage,
} from '../core/yaml-source.js';
import { reportZodIssues } from '../core/zod-diagnostics.js';

export interface SuiteLoadResult {
  suite: EvalSuite | undefined;
  diagnostics: Diagnostic[];
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Name of the default free-form judge. */
const DEFAULT_EVALUATOR = 'llm_judge';

/**
 * Loads one suite file (YAML or JSONL) into typed cases, collecting every problem with its
 * file:line:column. Returns no suite when any error was found: nothing is judged on a guess.
 */
export function loadSuiteFile(absPath: string, ws: Workspace): SuiteLoadResult {
  const display = ws.display(absPath);
  const sink = new DiagnosticSink(display);
  const fail = (rule: string, message: string): SuiteLoadResult => {
    sink.error({ line: 0, column: 0 }, rule, message);
    return { suite: undefined, diagnostics: sink.items };
  };
  const text = readUserFile(absPath, ws, 'suite file', sink);
  if (text === undefined) return { suite: undefined, diagnostics: sink.items };

  const ext = path.extname(absPath).toLowerCase();
  let doc: SourceDocument | undefined;
  if (ext === '.jsonl') doc = parseJsonl(text, sink);
  else if (ext === '.yaml' || ext === '.yml' || ext === '.json') doc = parseYamlSource(text, sink);
  else return fail('file-type', `unsupported suite file type '${ext}' (use .yaml, .yml or .jsonl)`);
  if (!doc) return { suite: undefined, diagnostics: sink.items };

  const loader = new SuiteLoader(absPath, display, doc, sink, ws);
  const suite = loader.load();
  return { suite: sink.hasErrors ? undefined : suite, diagnostics: sink.items };
}

/** Each JSONL line is one case; positions are kept per line. */
function parseJsonl(text: string, sink: DiagnosticSink): SourceDocument | undefined {
  const docs: { line: number; doc: SourceDocument }[] = [];
  const lines = text.split('\n');
  let ok = true;
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    // Depth is checked on the text, before any parser or walker can overflow on it.
    const deep = tooDeepOffset(line);
    if (deep >= 0) {
      sink.error({ line: i + 1, column: deep + 1 }, 'too-deep', tooDeepMessage);
      ok = false;
      return;
    }
    // Lines are JSON: parsed as such, with the YAML parser (a superset) only for the error position.
    let doc: SourceDocument | undefined;
    try {
      doc = jsonLineDocument(JSON.parse(line), line, i, sink);
    } catch {
      doc = parseYamlSource(line, sink, i);
    }
    if (!doc) ok = false;
    else if (!isRecord(doc.value)) {
      sink.error({ line: i + 1, column: 1 }, 'type', 'each JSONL line must be a JSON object (one eval case)');
      ok = false;
    } else docs.push({ line: i + 1, doc });
  });
  if (!ok) return undefined;
  const route = (p: readonly PathSegment[], key: boolean): Position => {
    if (p[0] === 'evalcases' && typeof p[1] === 'number' && docs[p[1]]) {
      const d = docs[p[1]]!.doc;
      return key ? d.locateKey(p.slice(2)) : d.locate(p.slice(2));
    }
    return { line: 1, column: 1 };
  };
  return {
    value: { evalcases: docs.map((d) => d.doc.value) },
    locate: (p) => route(p, false),
    locateKey: (p) => route(p, true),
    position: (p) => {
      if (p[0] === 'evalcases' && typeof p[1] === 'number' && docs[p[1]])
        return docs[p[1]]!.doc.position(p.slice(2));
      return { line: 1, column: 1 };
    },
  };
}

/** A JSONL line already parsed as JSON; exact positions are computed only if a problem needs one. */
function jsonLineDocument(value: unknown, line: string, index: number, sink: DiagnosticSink): SourceDocument {
  let exact: SourceDocument | undefined | null = null;
  const exactDoc = () =>
    exact === null ? (exact = parseYamlSource(line, new DiagnosticSink(sink.file), index)) : exact;
  const start = { line: index + 1, column: 1 };
  return {
    value,
    locate: (p) => exactDoc()?.locate(p) ?? start,
    locateKey: (p) => exactDoc()?.locateKey(p) ?? start,
    position: () => start,
  };
}

/** The v2 loader; the AgentV 5 loader borrows its message reading (files, parts, remote refs). */
class SuiteLoader {
  private readonly dir: string;
  constructor(
    private readonly absPath: string,
    private readonly display: string,
    private readonly doc: SourceDocument,
    private readonly sink: DiagnosticSink,
    private readonly ws: Workspace,
  ) {
    this.dir = path.dirname(absPath);
  }

  load(): EvalSuite | undefined {
    const { doc, sink } = this;
    const raw = doc.value;
    if (!isRecord(raw)) {
      sink.error(doc.locate([]), 'type', 'a suite must be a mapping with an `evalcases` list');
      return undefined;
    }
    if (isTestsFormat(raw))
      return loadTestsSuite(this, { absPath: this.absPath, display: this.display, doc, sink, ws: this.ws });
    // Validate the suite's own fields without the cases, then each case on its own so one bad
    // case does not hide the problems of the others.
    const { evalcases, eval_cases, tests, ...head } = raw;
    const headResult = EvalSuiteSchema.safeParse(head);
    if (!headResult.success) reportZodIssues(headResult.error, head, doc, sink);
    this.checkKeys(raw, KNOWN_SUITE_KEYS, [], 'suite');
    if (isRecord(raw.execution)) this.checkKeys(raw.execution, KNOWN_EXECUTION_KEYS, ['execution'], 'suite');

    const aliases = (['evalcases', 'eval_cases', 'tests'] as const).filter((k) => raw[k] !== undefined);
    if (aliases.length === 0) {
      sink.error(
        doc.locate([]),
        'required',
        'missing `evalcases` (or `eval_cases` / `tests`): a suite needs cases',
      );
      return undefined;
    }
    if (aliases.length > 1) {
      sink.error(
        doc.locateKey([aliases[1]!]),
        'alias-conflict',
        `both '${aliases[0]}' and '${aliases[1]}' given; use one`,
      );
    }
    const key = aliases[0]!;
    const list = { evalcases, eval_cases, tests }[key];
    if (!Array.isArray(list)) {
      sink.error(doc.locate([key]), 'type', `${key} must be a list of cases`);
      return undefined;
    }
    if (list.length === 0) sink.warn(doc.locate([key]), 'empty', 'the suite has no cases');

    const execution = isRecord(raw.execution) ? raw.execution : {};
    const suiteEvaluatorsRaw = Array.isArray(execution.evaluators)
      ? (execution.evaluators as RawEvaluator[])
      : null;
    const suiteTarget = str(execution.target) ?? str(raw.target);

    const cases: EvalCase[] = [];
    const seenIds = new Map<string, number>();
    list.forEach((rawCase: unknown, index: number) => {
      const base: PathSegment[] = [key, index];
      const subject =
        isRecord(rawCase) && rawCase.id !== undefined
          ? `case '${excerpt(String(rawCase.id))}'`
          : `case ${index + 1}`;
      // Before anything else about the case: a duplicate must not hide behind another error.
      if (isRecord(rawCase) && (typeof rawCase.id === 'string' || typeof rawCase.id === 'number')) {
        const id = String(rawCase.id);
        const prior = seenIds.get(id);
        if (prior !== undefined) {
          sink.error(
            doc.locate([...base, 'id']),
            'duplicate-id',
            `case id '${excerpt(id)}' is already used by case ${prior + 1}`,
            subject,
          );
        } else seenIds.set(id, index);
      }
      const read = isRecord(rawCase) ? this.withoutShadowedAliases(rawCase, base, subject) : rawCase;
      const parsed = EvalCaseSchema.safeParse(read);
      if (!parsed.success) {
        reportZodIssues(parsed.error, read, doc, sink, base, subject);
        return;
      }
      const c = this.loadCase(parsed.data, base, subject, suiteEvaluatorsRaw);
      if (c) cases.push(c);
    });

    return {
      path: this.display,
      absPath: this.absPath,
      description: str(raw.description),
      dataset: str(raw.dataset),
      target: suiteTarget,
      cases,
    };
  }

  private loadCase(
    raw: RawCase,
    base: PathSegment[],
    subject: string,
    suiteEvaluators: RawEvaluator[] | null,
  ): EvalCase | undefined {
    const { doc, sink } = this;
    const before = sink.items.filter((d) => d.severity === 'error').length;
    const id = String(raw.id);
    this.checkKeys(raw, KNOWN_CASE_KEYS, base, subject);
    if (isRecord(raw.execution))
      this.checkKeys(raw.execution, KNOWN_EXECUTION_KEYS, [...base, 'execution'], subject);

    const outcome = this.pickAlias(raw, ['expected_outcome', 'outcome', 'criteria'], base, subject);
    const inputKey = this.pickAliasKey(raw, ['input_messages', 'input'], base, subject);
    const expectedKey = this.pickAliasKey(raw, ['expected_messages', 'expected_output'], base, subject);

    const inputMessages = this.readInput(raw, inputKey, base, subject);
    const expectedMessages = expectedKey
      ? this.readMessages(expectedKey, raw[expectedKey], [...base, expectedKey], 'assistant', subject)
      : [];

    const evaluators = this.caseEvaluators(raw, base, subject, suiteEvaluators);

    const errorsNow = sink.items.filter((d) => d.severity === 'error').length;
    if (errorsNow > before) return undefined;
    return {
      id,
      suitePath: this.display,
      pos: doc.position(base),
      expectedOutcome: outcome ?? '',
      inputMessages,
      expectedMessages,
      conversationId: raw.conversation_id ?? null,
      referenceAnswer: raw.reference_answer ?? null,
      target: raw.execution?.target ?? null,
      evaluators,
    };
  }

  /** The case's question; a case without one, or with an empty list, is refused. */
  private readInput(
    raw: RawCase,
    inputKey: 'input_messages' | 'input' | undefined,
    base: PathSegment[],
    subject: string,
  ): Message[] {
    const { doc, sink } = this;
    if (!inputKey) {
      sink.error(
        doc.locate(base),
        'required',
        'missing `input_messages` (or `input`): what is the question?',
        subject,
      );
      return [];
    }
    const inputMessages = this.readMessages(inputKey, raw[inputKey], [...base, inputKey], 'user', subject);
    // AgentV skips a case whose input list is empty as incomplete; here it is refused, never run.
    if (Array.isArray(raw[inputKey]) && (raw[inputKey] as unknown[]).length === 0)
      sink.error(
        doc.locate([...base, inputKey]),
        'required',
        `\`${inputKey}\` is an empty list: a case needs input (what is the question?)`,
        subject,
      );
    return inputMessages;
  }

  /**
   * The case's evaluators: its inline rubrics first, then the chosen evaluator list; with none at
   * all, the default free-form judge.
   */
  private caseEvaluators(
    raw: RawCase,
    base: PathSegment[],
    subject: string,
    suiteEvaluators: RawEvaluator[] | null,
  ): EvaluatorConfig[] {
    const { doc, sink } = this;
    const evaluators: EvaluatorConfig[] = [];
    if (raw.rubrics !== undefined) {
      const rubrics = parseRubricList(raw.rubrics, {
        sink,
        locate: (p) => doc.locate([...base, 'rubrics', ...p]),
        locateKey: (p) => doc.locateKey([...base, 'rubrics', ...p]),
      });
      if (rubrics) {
        evaluators.push({
          type: 'llm_judge',
          name: INLINE_RUBRIC_EVALUATOR,
          weight: 1,
          rubrics,
          prompt: null,
          pos: doc.position([...base, 'rubrics']),
        });
      }
    }
    // AgentV's priority: the case's execution.evaluators, the case's own `evaluators:`, then the suite's.
    const chosen = chooseEvaluators(raw, base, suiteEvaluators);
    if (chosen) evaluators.push(...this.loadEvaluators(chosen.list, chosen.at, subject));
    this.checkUniqueNames(evaluators, subject);
    if (evaluators.length > 0 && evaluators.every((e) => e.weight === 0)) {
      sink.warn(
        evaluators[0]!.pos,
        'zero-weight',
        'every evaluator of this case has weight 0: nothing is counted, so the case scores 0 and fails (as in AgentV)',
        subject,
      );
    }
    if (evaluators.length === 0) {
      evaluators.push({
        type: 'llm_judge',
        name: DEFAULT_EVALUATOR,
        weight: 1,
        rubrics: null,
        prompt: null,
        pos: doc.position(base),
      });
    }
    return evaluators;
  }

  private pickAliasKey<K extends string>(
    raw: Record<string, unknown>,
    keys: K[],
    base: PathSegment[],
    subject: string,
  ): K | undefined {
    const present = keys.filter((k) => raw[k] !== undefined);
    if (present.length > 1) {
      this.sink.error(
        this.doc.locateKey([...base, present[1]!]),
        'alias-conflict',
        `both '${present[0]}' and '${present[1]}' given; they are aliases, use one`,
        subject,
      );
    }
    return present[0];
  }

  private pickAlias(
    raw: Record<string, unknown>,
    keys: string[],
    base: PathSegment[],
    subject: string,
  ): string | undefined {
    const key = this.pickAliasKey(raw, keys, base, subject);
    return key ? (raw[key] as string) : undefined;
  }

  /**
   * The case is read without an alias its canonical key shadows (AgentV reads the canonical
   * one); the alias is named in a warning so a stale copy does not go unnoticed.
   */
  private withoutShadowedAliases(
    rawCase: Record<string, unknown>,
    base: PathSegment[],
    subject: string,
  ): Record<string, unknown> {
    const { value, shadowed } = dropShadowedAliases(rawCase);
    for (const { alias, canonical } of shadowed) {
      this.sink.warn(
        this.doc.locateKey([...base, alias]),
        'alias-ignored',
        `'${alias}' is ignored: '${canonical}' is given and wins (as in AgentV)`,
        subject,
      );
    }
    return value;
  }

  /** Messages for another format's loader: an expected output read as `expected_output`, else as `input`. */
  loadMessages(value: unknown, at: PathSegment[], defaultRole: string, subject: string): Message[] {
    return this.readMessages(
      defaultRole === 'assistant' ? 'expected_output' : 'input',
      value,
      at,
      defaultRole,
      subject,
    );
  }

  private readMessages(
    key: string,
    value: unknown,
    at: PathSegment[],
    defaultRole: string,
    subject: string,
  ): Message[] {
    const shape = messagesShape(key, value);
    if (shape.kind === 'text') return [textMessage(defaultRole, shape.text)];
    if (shape.kind === 'structured') {
      return [
        { ...textMessage(defaultRole, JSON.stringify(shape.content, null, 2)), structured: shape.content },
      ];
    }
    const out: Message[] = [];
    for (const item of shape.items) {
      const where = [...at, ...item.at];
      // `expected_output` lists pass the schema as any list: their messages are checked here.
      const parsed = key === 'expected_output' ? MessageSchema.safeParse(item.value) : null;
      if (parsed && !parsed.success) {
        reportZodIssues(parsed.error, item.value, this.doc, this.sink, where, subject);
        continue;
      }
      out.push(this.loadMessage(parsed?.data ?? (item.value as RawMessage), where, subject));
    }
    return out;
  }

  private loadMessage(m: RawMessage, at: PathSegment[], subject: string): Message {
    this.checkKeys(m, KNOWN_MESSAGE_KEYS, at, subject);
    const message: Message = {
      role: m.role,
      parts: this.loadContent(m.content, [...at, 'content'], subject),
    };
    if (isRecord(m.content)) message.structured = m.content;
    if (Array.isArray(m.tool_calls)) message.toolCalls = m.tool_calls;
    return message;
  }

  private loadContent(content: unknown, at: PathSegment[], subject: string): ContentPart[] {
    if (content === undefined || content === null) return [];
    if (typeof content === 'string') return [{ type: 'text', text: content }];
    if (!Array.isArray(content)) return [{ type: 'text', text: JSON.stringify(content, null, 2) }];
    const parts: ContentPart[] = [];
    content.forEach((part: { type: 'text' | 'file'; value: string }, i: number) => {
      this.checkKeys(part, KNOWN_PART_KEYS, [...at, i], subject);
      if (part.type === 'text') {
        parts.push({ type: 'text', text: part.value });
        return;
      }
      if (/^https?:\/\//i.test(part.value)) {
        const file = this.remoteReference(part.value, [...at, i, 'value'], subject);
        if (file) parts.push({ type: 'file', file });
        return;
      }
      const text = this.readReference(part.value, [...at, i, 'value'], subject);
      if (text) {
        parts.push({
          type: 'file',
          file: {
            path: this.ws.display(text.absPath),
            absPath: text.absPath,
            text: text.text,
            guideline: isGuidelineFile(part.value),
          },
        });
      }
    });
    return parts;
  }

  /** A file given as a URL: only GitHub blob URLs, fetched through the API before the run. */
  private remoteReference(value: string, at: PathSegment[], subject: string): FileAttachment | undefined {
    const ref = parseGitHubBlobUrl(value);
    if (!ref) {
      this.sink.error(
        this.doc.locate(at),
        'remote-file',
        `'${value}' is not a GitHub file URL (https://github.com/{owner}/{repo}/blob/{ref}/{path}); other hosts are not fetched`,
        subject,
      );
      return undefined;
    }
    return { path: value, absPath: '', text: '', guideline: isGuidelineFile(ref.refAndPath), remote: ref };
  }

  private readReference(
    value: string,
    at: PathSegment[],
    subject: string,
  ): { absPath: string; text: string } | undefined {
    const pos = this.doc.locate(at);
    return readReferencedFile(this.ws, value, this.dir, (rule, message) =>
      this.sink.error(pos, rule, message, subject),
    );
  }

  private loadPrompt(value: string | undefined, at: PathSegment[], subject: string): PromptTemplate | null {
    if (value === undefined) return null;
    const read = this.readReference(value, at, subject);
    return read ? { path: this.ws.display(read.absPath), template: read.text } : null;
  }

  /** `prompt: {script: [argv], config?}`: the script's file (the last argv item) must exist. */
  private loadPromptScript(
    value: { script: string[]; config?: Record<string, unknown> },
    at: PathSegment[],
    subject: string,
  ): PromptScript | undefined {
    const argv = value.script;
    const file = this.readReference(argv[argv.length - 1]!, [...at, 'script', argv.length - 1], subject);
    if (!file) return undefined;
    return {
      command: [...argv.slice(0, -1), file.absPath],
      cwd: path.dirname(file.absPath),
      config: value.config ?? null,
    };
  }

  private resolveCwd(value: string | undefined, at: PathSegment[], subject: string): string {
    if (value === undefined) return this.dir;
    const abs = value.startsWith('/')
      ? path.join(this.ws.root, value.slice(1))
      : path.resolve(this.dir, value);
    if (!this.ws.contains(abs)) {
      this.sink.error(
        this.doc.locate(at),
        'escapes-workspace',
        `cwd '${excerpt(value)}' is outside the workspace`,
        subject,
      );
    }
    return abs;
  }

  private loadEvaluators(list: RawEvaluator[], at: PathSegment[], subject: string): EvaluatorConfig[] {
    const out: EvaluatorConfig[] = [];
    list.forEach((raw, i) => {
      const e = this.loadEvaluator(raw, [...at, i], subject);
      if (e) out.push(e);
    });
    return out;
  }

  private loadEvaluator(
    raw: RawEvaluator,
    at: PathSegment[],
    caseSubject: string,
  ): EvaluatorConfig | undefined {
    const { doc, sink } = this;
    const subject = `${caseSubject} evaluator '${raw.name}'`;
    const pos = doc.position(at);
    const weight = raw.weight ?? 1;
    if (!Number.isFinite(weight) || weight < 0) {
      sink.error(
        doc.locate([...at, 'weight']),
        'weight',
        `weight ${weight} must be a finite number >= 0`,
        subject,
      );
    }
    const type = raw.type.replace('-', '_') as 'llm_judge' | 'code_judge' | 'composite' | DeterministicType;
    const known = knownEvaluatorKeys(type);
    if (known) this.checkKeys(raw, known, at, subject, OPEN_EVALUATOR_TYPES.has(type) ? 'script' : undefined);
    if (isDeterministicType(type)) {
      const notes: ConfigNote[] = [];
      const config = deterministicConfig(type, raw, { name: raw.name, weight, pos }, notes);
      for (const n of notes) sink.warn(doc.locateKey([...at, ...n.at]), 'not-compared', n.message, subject);
      return config;
    }
    switch (type) {
      case 'llm_judge': {
        // One judge per run, the workflow's: a suite is the pull request's to edit.
        if (raw.model !== undefined)
          sink.warn(
            doc.locateKey([...at, 'model']),
            'judge-model-ignored',
            "`model` is ignored: every case is judged by the workflow's judge (the judge inputs), never by a model the checkout names",
            subject,
          );
        const rubrics = raw.rubrics
          ? (parseRubricList(raw.rubrics, {
              sink,
              locate: (p) => doc.locate([...at, 'rubrics', ...p]),
              locateKey: (p) => doc.locateKey([...at, 'rubrics', ...p]),
            }) ?? null)
          : null;
        if (raw.prompt !== undefined && typeof raw.prompt !== 'string') {
          const promptScript = this.loadPromptScript(raw.prompt, [...at, 'prompt'], subject);
          if (!promptScript) return undefined;
          return { type, name: raw.name, weight, rubrics, prompt: null, promptScript, pos };
        }
        const prompt = this.loadPrompt(raw.prompt, [...at, 'prompt'], subject);
        if (rubrics && prompt) {
          sink.warn(
            doc.locateKey([...at, 'prompt']),
            'prompt-ignored',
            'with `rubrics`, the judge uses the rubric prompt; this prompt file is not used (use two evaluators to have both)',
            subject,
          );
        }
        return { type, name: raw.name, weight, rubrics, prompt, pos };
      }
      case 'code_judge': {
        const command = raw.script ?? raw.path;
        if (command === undefined) {
          sink.error(
            doc.locate(at),
            'required',
            'a code_judge needs `script` (a command string or argv list)',
            subject,
          );
          return undefined;
        }
        const cwd = this.resolveCwd(raw.cwd, [...at, 'cwd'], subject);
        this.checkScriptFiles(command, cwd, [...at, raw.script !== undefined ? 'script' : 'path'], subject);
        const { name: _n, type: _t, weight: _w, script: _s, path: _p, cwd: _c, ...config } = raw;
        return { type, name: raw.name, weight, command, cwd, config, pos };
      }
      case 'composite': {
        if (!raw.evaluators || raw.evaluators.length === 0) {
          sink.error(doc.locate(at), 'required', 'a composite needs a non-empty `evaluators` list', subject);
          return undefined;
        }
        const children = this.loadEvaluators(raw.evaluators, [...at, 'evaluators'], caseSubject);
        this.checkUniqueNames(children, subject);
        const aggregator = this.loadAggregator(raw.aggregator, children, [...at, 'aggregator'], subject);
        if (!aggregator) return undefined;
        return { type, name: raw.name, weight, children, aggregator, pos };
      }
    }
  }

  private loadAggregator(
    raw: RawEvaluator['aggregator'],
    children: EvaluatorConfig[],
    at: PathSegment[],
    subject: string,
  ): AggregatorConfig | undefined {
    const { doc, sink } = this;
    if (!raw) return { type: 'weighted_average', weights: {} };
    this.checkKeys(raw, KNOWN_AGGREGATOR_KEYS, at, subject);
    const type = raw.type.replace('-', '_') as 'weighted_average' | 'code_judge' | 'llm_judge';
    if (type === 'weighted_average') {
      const weights = raw.weights ?? {};
      const names = new Set(children.map((c) => c.name));
      for (const [name, w] of Object.entries(weights)) {
        if (!names.has(name)) {
          sink.error(
            doc.locateKey([...at, 'weights', name]),
            'unknown-evaluator',
            `weight for '${name}', which is not a child (children: ${[...names].join(', ')})`,
            subject,
          );
        }
        if (!Number.isFinite(w) || w < 0)
          sink.error(
            doc.locate([...at, 'weights', name]),
            'weight',
            `weight ${w} must be a finite number >= 0`,
            subject,
          );
      }
      if (children.length > 0 && children.every((c) => (weights[c.name] ?? 1) === 0)) {
        sink.warn(
          doc.locateKey([...at, 'weights']),
          'zero-weight',
          'every child has weight 0: nothing is counted, so the composite scores 0 (as in AgentV)',
          subject,
        );
      }
      return { type, weights };
    }
    if (type === 'code_judge') {
      const command = raw.script ?? raw.path;
      if (command === undefined) {
        sink.error(doc.locate(at), 'required', 'a code_judge aggregator needs `script` (or `path`)', subject);
        return undefined;
      }
      const cwd = this.resolveCwd(raw.cwd, [...at, 'cwd'], subject);
      this.checkScriptFiles(command, cwd, [...at, raw.script !== undefined ? 'script' : 'path'], subject);
      return { type, command, cwd };
    }
    return { type, prompt: this.loadPrompt(raw.prompt, [...at, 'prompt'], subject) };
  }

  private checkUniqueNames(evaluators: EvaluatorConfig[], subject: string): void {
    const seen = new Set<string>();
    for (const e of evaluators) {
      if (seen.has(e.name)) {
        this.sink.error(
          e.pos,
          'duplicate-name',
          `evaluator name '${e.name}' is used twice in one list${e.name === INLINE_RUBRIC_EVALUATOR ? " (inline `rubrics` become an evaluator named 'rubric')" : ''}`,
          subject,
        );
      }
      seen.add(e.name);
    }
  }

  /** The files a code judge's command names must exist where it will run (run fails them otherwise). */
  private checkScriptFiles(
    command: string | string[],
    cwd: string,
    at: PathSegment[],
    subject: string,
  ): void {
    for (const file of scriptFileArgs(command)) {
      const abs = path.resolve(cwd, file);
      if (existsSync(abs)) continue;
      this.sink.error(
        this.doc.locate(at),
        'missing-file',
        `code_judge script '${file}' not found (looked for ${this.ws.display(abs)})`,
        subject,
      );
    }
  }

  /** Unknown keys of one object: a near miss of a known key is an error, others a warning. */
  private checkKeys(
    obj: object,
    known: ReadonlySet<string>,
    at: PathSegment[],
    subject: string,
    passedTo?: string,
  ): void {
    checkUnknownKeys(obj as Record<string, unknown>, known, {
      sink: this.sink,
      locateKey: (key) => this.doc.locateKey([...at, key]),
      subject,
      open: passedTo ? { what: passedTo } : undefined,
    });
  }
}

/** Which evaluator list a case uses, and where it is written. */
function chooseEvaluators(
  raw: RawCase,
  base: PathSegment[],
  suiteEvaluators: RawEvaluator[] | null,
): { list: RawEvaluator[]; at: PathSegment[] } | null {
  const fromExecution = raw.execution?.evaluators as RawEvaluator[] | undefined;
  if (fromExecution) return { list: fromExecution, at: [...base, 'execution', 'evaluators'] };
  if (raw.evaluators) return { list: raw.evaluators, at: [...base, 'evaluators'] };
  if (suiteEvaluators) return { list: suiteEvaluators, at: ['execution', 'evaluators'] };
  return null;
}

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}
