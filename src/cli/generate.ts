import { writeFileNoFollow } from '../core/safe-write.js';
import path from 'node:path';
import { isMap, isSeq, LineCounter, parseDocument, stringify, type YAMLMap } from 'yaml';
import { z } from 'zod';
import { formatDiagnostic } from '../core/diagnostics.js';
import { JudgeCache } from '../judge/cache.js';
import { type EndpointConfig } from '../judge/chat.js';
import { fence } from '../judge/fence.js';
import { Judge } from '../judge/judge.js';
import { AdaptiveLimiter } from '../exec/limiter.js';
import { DEFAULT_PRICES } from '../judge/pricing.js';
import { judgeEndpoint } from '../pipeline/judge-endpoint.js';
import { loadSuiteFile } from '../suite/load-suite.js';
import { withNunjucks } from '../suite/agentv5/nunjucks-render.js';
import { renderQuestionOutline } from '../suite/messages.js';
import { type EvalCase } from '../suite/types.js';
import { Workspace } from '../core/workspace.js';
import { endpointOfTarget } from '../targets/plan.js';
import { findTargetsFile, loadTargetsFile } from '../targets/targets-file.js';
import { criteriaInsertion } from './criteria-insertion.js';
import { type CliIO, EXIT_FAIL, EXIT_PASS, EXIT_USAGE, judgeCredentials } from './io.js';
import { CLI_SETTINGS } from '../core/setting-names.js';

export interface GenerateOptions {
  suite: string;
  cwd: string;
  dryRun: boolean;
  target: string | null;
  targets: string | null;
  judgeModel: string | null;
  judgeBaseURL: string | null;
  timeoutMs: number;
  io: CliIO;
}

const GeneratedRubrics = z.object({
  rubrics: z
    .array(
      z.object({
        id: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, 'ids are short kebab-case words'),
        expected_outcome: z.string().min(1),
        weight: z.number().min(0.5).max(3),
        required: z.boolean(),
      }),
    )
    .min(3)
    .max(7),
});

/**
 * `generate rubrics`: drafts 3-7 checklist items for each case from its expected_outcome, for the
 * user to review.
 */
export async function generateRubrics(o: GenerateOptions): Promise<number> {
  const { io } = o;
  const ws = new Workspace(o.cwd);
  const abs = path.resolve(o.cwd, o.suite);
  if (!/\.ya?ml$/i.test(abs)) {
    io.stderr.write('rubric-eval: generate rubrics works on YAML suites\n');
    return EXIT_USAGE;
  }
  const loaded = await withNunjucks(() => loadSuiteFile(abs, ws));
  const errors = loaded.diagnostics.filter((d) => d.severity === 'error');
  if (!loaded.suite || errors.length > 0) {
    for (const d of errors) io.stderr.write(`${formatDiagnostic(d)}\n`);
    return EXIT_USAGE;
  }
  // Through the workspace's reader, as the loader read it (already checked, and cached).
  const text = ws.readText(abs);
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter });
  const root = doc.contents;
  const listKey = ['evalcases', 'eval_cases', 'tests'].find((k) => isMap(root) && root.has(k))!;
  const list = isMap(root) ? root.get(listKey, true) : null;
  if (!isSeq(list)) return EXIT_USAGE;

  const endpoint = resolveEndpoint(o, ws);
  if ('error' in endpoint) {
    io.stderr.write(`rubric-eval: ${endpoint.error}\n`);
    return EXIT_USAGE;
  }
  const judge = new Judge(endpoint.endpoint, {
    limiter: new AdaptiveLimiter(4),
    cache: new JudgeCache(null),
    prices: DEFAULT_PRICES,
    temperature: 0,
  });

  // AgentV 5 / promptfoo suites get plain-string criteria in `assert`; v2 suites get `rubrics`.
  const testsFormat = loaded.suite.cases.some((c) => c.scoring !== undefined);
  const insertions: { offset: number; text: string; caseId: string }[] = [];
  for (const [index, item] of list.items.entries()) {
    if (!isMap(item)) continue;
    const c = testsFormat ? testOf(loaded.suite.cases, item.get('id')) : loaded.suite.cases[index];
    if (!c || !c.expectedOutcome.trim()) continue;
    if (testsFormat ? c.evaluators.some((e) => e.type === 'llm_judge') : item.has('rubrics')) continue;
    const answer = await askRubrics(judge, c, io);
    if (!answer) return EXIT_FAIL;
    if (!testsFormat) {
      insertions.push({ ...insertionFor(item, text, answer), caseId: c.id });
      continue;
    }
    const ins = criteriaInsertion(
      item,
      text,
      answer.map((r) => r.expected_outcome),
    );
    if (ins) insertions.push({ ...ins, caseId: c.id });
    else io.stderr.write(`rubric-eval: test '${c.id}': its \`assert\` is a flow list; not rewritten\n`);
  }

  if (insertions.length === 0) {
    io.stdout.write('no case needs rubrics (every case with an expected_outcome already has them)\n');
    return EXIT_PASS;
  }
  let updated = text;
  for (const ins of [...insertions].sort((a, b) => b.offset - a.offset)) {
    updated = updated.slice(0, ins.offset) + ins.text + updated.slice(ins.offset);
  }
  if (o.dryRun) {
    io.stdout.write(insertionDiff(ws.display(abs), text, insertions));
  } else {
    writeFileNoFollow(abs, updated);
    io.stdout.write(
      `added rubrics to ${insertions.length} case${insertions.length === 1 ? '' : 's'} in ${ws.display(abs)}: ${insertions.map((i) => i.caseId).join(', ')}\n`,
    );
  }
  return EXIT_PASS;
}

/** The judge's 3-7 checklist items for one case, from its expected outcome and question. */
async function askRubrics(
  judge: Judge,
  c: EvalCase,
  io: CliIO,
): Promise<z.infer<typeof GeneratedRubrics>['rubrics'] | null> {
  const answer = await judge
    .judge({
      prompt: {
        messages: [
          {
            role: 'system',
            content:
              'You write grading rubrics. Turn the expected outcome into 3-7 atomic, independently checkable checklist items: each tests one observable property of a good answer. ' +
              'Mark as required only what a correct answer cannot lack. Weights: 2-3 for core requirements, 1 for normal, 0.5 for nice-to-haves. Ids are short kebab-case.',
          },
          {
            role: 'user',
            content: `[[ ## expected_outcome ## ]]\n${c.expectedOutcome.trim()}\n\n[[ ## question ## ]]\n${fence('question', renderQuestionOutline(c.inputMessages))}`,
          },
        ],
        shapeHint:
          '{"rubrics": [{"id": "<kebab-case>", "expected_outcome": "<one checkable property>", "weight": <0.5-3>, "required": true|false}, ... 3 to 7 items]}',
      },
      schemaName: 'generated_rubrics',
      wireSchema: GeneratedRubrics,
      validate: (d) => {
        const r = GeneratedRubrics.safeParse(d);
        if (!r.success)
          return {
            ok: false,
            error: r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
          };
        const ids = r.data.rubrics.map((x) => x.id);
        if (new Set(ids).size !== ids.length) return { ok: false, error: 'ids must be unique' };
        return { ok: true, value: r.data, warnings: [] };
      },
    })
    .catch((err: Error) => {
      io.stderr.write(`rubric-eval: case '${c.id}': ${err.message}\n`);
      return null;
    });
  return answer ? answer.value.rubrics : null;
}

/** The loaded test for a YAML test item: by id (a prompt matrix makes `<id>__prompt_<p>` copies). */
function testOf(cases: readonly EvalCase[], id: unknown): EvalCase | undefined {
  const key = String(id);
  return cases.find((c) => c.id === key) ?? cases.find((c) => c.id.startsWith(`${key}__prompt_`));
}

function resolveEndpoint(
  o: GenerateOptions,
  ws: Workspace,
): { endpoint: EndpointConfig } | { error: string } {
  if (o.target) {
    const file = o.targets
      ? path.resolve(o.cwd, o.targets)
      : findTargetsFile(path.dirname(path.resolve(o.cwd, o.suite)), ws);
    if (!file) return { error: 'no targets.yaml found for --target' };
    const loaded = loadTargetsFile(file, ws);
    const def = loaded.file?.targets.get(o.target);
    if (!def) return { error: `target '${o.target}' not found in ${ws.display(file)}` };
    const r = endpointOfTarget(def, o.io.env, o.timeoutMs);
    if (!r.endpoint) return { error: r.diagnostics.map(formatDiagnostic).join('\n') };
    return { endpoint: r.endpoint };
  }
  const credentials = judgeCredentials(o.io.env);
  return judgeEndpoint(
    {
      judge: {
        model: o.judgeModel,
        baseURL: o.judgeBaseURL,
        apiKey: credentials.apiKey ?? null,
        githubToken: credentials.githubToken ?? null,
        timeoutMs: o.timeoutMs,
        prices: {},
      },
    } as Parameters<typeof judgeEndpoint>[0],
    CLI_SETTINGS,
  );
}

/**
 * Where and what to insert: a `rubrics:` key at the case's indentation, right after the line of
 * the case's last value, so that no existing line changes (comments and blank lines after the
 * case stay where they are).
 */
function insertionFor(
  item: YAMLMap,
  text: string,
  rubrics: z.infer<typeof GeneratedRubrics>['rubrics'],
): { offset: number; text: string } {
  const firstKey = item.items[0]?.key as { range?: [number, number, number] } | undefined;
  const keyStart = firstKey?.range?.[0] ?? 0;
  const indent = keyStart - (text.lastIndexOf('\n', keyStart - 1) + 1);
  const lastPair = item.items[item.items.length - 1]!;
  const lastValue = (lastPair.value ?? lastPair.key) as { range?: [number, number, number] };
  const valueEnd = lastValue.range?.[1] ?? text.length;
  // The insertion goes at the start of the line after the last non-blank character of the value.
  let end = valueEnd;
  while (end > 0 && /\s/.test(text[end - 1]!)) end--;
  const nl = text.indexOf('\n', end);
  const offset = nl === -1 ? text.length : nl + 1;
  const body = stringify({ rubrics }, { indent: 2, lineWidth: 0 })
    .trimEnd()
    .split('\n')
    .map((l) => ' '.repeat(indent) + l)
    .join('\n');
  const prefix = nl === -1 ? '\n' : '';
  return { offset, text: `${prefix}\n${body}\n` };
}

function insertionDiff(
  file: string,
  original: string,
  insertions: { offset: number; text: string }[],
): string {
  const out = [`--- a/${file}`, `+++ b/${file}`];
  let shift = 0;
  for (const ins of [...insertions].sort((a, b) => a.offset - b.offset)) {
    const line = original.slice(0, ins.offset).split('\n').length;
    const added = ins.text.replace(/\n$/, '').split('\n');
    out.push(`@@ -${line - 1},0 +${line + shift},${added.length} @@`);
    out.push(...added.map((l) => `+${l}`));
    shift += added.length;
  }
  return out.join('\n') + '\n';
}
