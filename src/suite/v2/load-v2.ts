import { excerpt } from '../../core/diagnostics.js';
import { parseRepeat } from '../../core/repeat-setting.js';
import { parseRubricList } from '../rubric-items.js';
import {
  EvalCaseSchema,
  EvalSuiteSchema,
  KNOWN_CASE_KEYS,
  KNOWN_EXECUTION_KEYS,
  KNOWN_SUITE_KEYS,
  type RawCase,
  type RawEvaluator,
} from './schema.js';
import { dropShadowedAliases } from './shorthand.js';
import {
  type EvalCase,
  type EvalSuite,
  type EvaluatorConfig,
  INLINE_RUBRIC_EVALUATOR,
  type Message,
} from '../types.js';
import { isTestsFormat, loadTestsSuite } from '../agentv5/tests-format.js';
import { type PathSegment } from '../../core/yaml-source.js';
import { reportZodIssues } from '../../core/zod-diagnostics.js';
import { V2EvaluatorReader } from './evaluators.js';
import { isRecord } from '../../core/is-record.js';

/** Name of the default free-form judge. */
const DEFAULT_EVALUATOR = 'llm_judge';

/** The v2 loader; the AgentV 5 loader borrows its message reading (files, parts, remote refs). */
export class SuiteLoader extends V2EvaluatorReader {
  load(): EvalSuite | undefined {
    const { doc, sink } = this;
    const raw = doc.value;
    if (!isRecord(raw)) {
      sink.error(doc.locate([]), 'type', 'a suite must be a mapping with an `evalcases` list');
      return undefined;
    }
    if (isTestsFormat(raw))
      return loadTestsSuite(this, {
        absPath: this.absPath,
        display: this.display,
        doc,
        sink,
        ws: this.ws,
        inputsOnly: this.options.inputsOnly,
      });
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
      ...(typeof raw.min_pass_rate === 'number' && headResult.success
        ? { minPassRate: raw.min_pass_rate }
        : {}),
      ...(parseRepeat(raw.repeat) !== null ? { repeat: parseRepeat(raw.repeat)! } : {}),
    };
  }

  protected loadCase(
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
      ...(raw.cluster ? { cluster: raw.cluster } : {}),
    };
  }

  /** The case's question; a case without one, or with an empty list, is refused. */
  protected readInput(
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
  protected caseEvaluators(
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

  protected pickAliasKey<K extends string>(
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

  protected pickAlias(
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
  protected withoutShadowedAliases(
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
