import path from 'node:path';
import { parseRubricList } from '../rubric-items.js';
import {
  type ConfigNote,
  deterministicConfig,
  type DeterministicType,
  isDeterministicType,
} from '../deterministic-configs.js';
import {
  KNOWN_AGGREGATOR_KEYS,
  knownEvaluatorKeys,
  OPEN_EVALUATOR_TYPES,
  type RawEvaluator,
} from './schema.js';
import { scriptFileArgs } from '../script-files.js';
import { type AggregatorConfig, type EvaluatorConfig, INLINE_RUBRIC_EVALUATOR } from '../types.js';
import { type PathSegment } from '../../core/yaml-source.js';
import { V2Reader } from './reader.js';

/** v2 evaluators and their aggregators, read from a case's (or the suite's) evaluator list. */
export class V2EvaluatorReader extends V2Reader {
  protected loadEvaluators(list: RawEvaluator[], at: PathSegment[], subject: string): EvaluatorConfig[] {
    // Inputs only: no evaluator is compiled, checked or has its script read (the base's grade).
    if (this.options.inputsOnly) return [];
    const out: EvaluatorConfig[] = [];
    list.forEach((raw, i) => {
      const e = this.loadEvaluator(raw, [...at, i], subject);
      if (e) out.push(e);
    });
    return out;
  }

  protected loadEvaluator(
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

  protected loadAggregator(
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

  protected checkUniqueNames(evaluators: EvaluatorConfig[], subject: string): void {
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
  protected checkScriptFiles(
    command: string | string[],
    cwd: string,
    at: PathSegment[],
    subject: string,
  ): void {
    for (const file of scriptFileArgs(command)) {
      const abs = path.resolve(cwd, file);
      if (this.ws.has(abs)) continue;
      this.sink.error(
        this.doc.locate(at),
        'missing-file',
        `code_judge script '${file}' not found (looked for ${this.ws.display(abs)})`,
        subject,
      );
    }
  }
}
