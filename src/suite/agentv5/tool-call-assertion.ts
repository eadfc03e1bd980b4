import { type PathSegment } from '../../core/yaml-source.js';
import { type EvaluatorConfig, type ProviderToolSchema } from '../types.js';
import { type AssertionContext, type Base } from './assertion-context.js';

/**
 * promptfoo's tool-call assertions read: the answer's calls are checked against the tools of
 * the provider that answered (src/evaluators/openai-tool-call.ts), so each assertion carries the
 * suite's providers' tools. What promptfoo would fail on every answer is said here, at `validate`.
 */

/** promptfoo's names (`is-valid-function-call` is the function check's other name). */
const TOOL_CALL_TYPES: Record<string, 'tools' | 'function'> = {
  'is-valid-openai-tools-call': 'tools',
  'is-valid-openai-function-call': 'function',
  'is-valid-function-call': 'function',
};

export const isToolCallType = (type: string): boolean => TOOL_CALL_TYPES[type] !== undefined;

export function toolCallAssertion(
  type: string,
  inverse: boolean,
  at: PathSegment[],
  base: Base,
  ctx: AssertionContext,
): EvaluatorConfig | undefined {
  const { doc, sink, subject } = ctx;
  if (inverse) {
    sink.error(
      doc.locateKey([...at, 'type']),
      'unsupported-assertion',
      `'not-${type}' is not run (promptfoo ignores \`not-\` on ${type} and grades it as ${type})`,
      subject,
    );
    return undefined;
  }
  const kind = TOOL_CALL_TYPES[type]!;
  const providers: ProviderToolSchema[] = (ctx.providers ?? []).map((p) => ({
    target: p.target,
    ...p.tools,
  }));
  if (providers.length === 0) {
    sink.error(
      doc.locate(at),
      'missing-provider',
      `\`${type}\` checks the answer against its provider's ${kind === 'tools' ? '`config.tools`' : '`config.functions`'}; the suite names no provider`,
      subject,
    );
    return undefined;
  }
  const never = providers.filter((p) => (kind === 'tools' ? !p.tools : p.api !== 'chat' || !p.functions));
  for (const p of never)
    sink.warn(
      doc.locate(at),
      'always-fails',
      `provider '${p.target}' ${
        kind === 'tools'
          ? 'has no `config.tools`'
          : p.api === 'chat'
            ? 'has no `config.functions`'
            : 'is not an OpenAI Chat Completions provider (promptfoo checks a function call through that provider only)'
      }: \`${type}\` fails on each of its answers, as in promptfoo`,
      subject,
    );
  return { ...base, type: 'tool_call', kind, providers };
}
