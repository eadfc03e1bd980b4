import { type Config } from '../config/config.js';
import { type Diagnostic } from '../core/diagnostics.js';
import { type EndpointConfig, OPENAI_URL } from '../judge/chat.js';
import { ACTION_SETTINGS, type SettingNames } from '../core/setting-names.js';
import { type EvalCase, type EvaluatorConfig } from '../suite/types.js';

export const GITHUB_MODELS_URL = 'https://models.github.ai/inference';

/** The judge endpoint from the inputs: GitHub Models with the token, unless a key is given (then OpenAI, or `judge-base-url`). */
export function judgeEndpoint(
  config: Config,
  names: SettingNames = ACTION_SETTINGS,
): { endpoint: EndpointConfig } | { error: string } {
  const j = config.judge;
  const baseURL = j.baseURL ?? (j.apiKey ? OPENAI_URL : GITHUB_MODELS_URL);
  const isGitHubModels = baseURL.replace(/\/+$/, '') === GITHUB_MODELS_URL;
  const apiKey = j.apiKey ?? (isGitHubModels ? j.githubToken : null) ?? '';
  if (isGitHubModels && !apiKey) {
    return {
      error: `no judge credentials: set ${names.judgeApiKey} (with ${names.judgeBaseUrl} for a non-OpenAI endpoint), or give ${names.githubToken} to judge with GitHub Models`,
    };
  }
  const model = j.model ?? (isGitHubModels ? 'openai/gpt-4.1-mini' : 'gpt-4.1-mini');
  const embeddingModel =
    j.embeddingModel ?? (isGitHubModels ? 'openai/text-embedding-3-small' : 'text-embedding-3-small');
  return { endpoint: { baseURL, apiKey, model, embeddingModel, azure: null, timeoutMs: j.timeoutMs } };
}

/** GitHub Models with the workflow's token is the one judge a fork's run may still reach. */
function forkCanUseGitHubModels(config: Config): boolean {
  const url = (config.judge.baseURL ?? GITHUB_MODELS_URL).replace(/\/+$/, '');
  return url === GITHUB_MODELS_URL && !!config.judge.githubToken;
}

/** The judge as the results file names it. */
export const judgeInfo = (e: EndpointConfig | null): { model: string; base_url: string } | null =>
  e ? { model: e.model, base_url: e.baseURL } : null;

/** Whether an evaluator (or any part of a composite) asks the LLM judge. */
export function usesLlm(e: EvaluatorConfig): boolean {
  return (
    e.type === 'llm_judge' ||
    e.type === 'similarity' ||
    e.type === 'model_graded' ||
    (e.type === 'composite' && (e.aggregator.type === 'llm_judge' || e.children.some(usesLlm)))
  );
}

/** Whether a case asks the judge: an evaluator that does, or promptfoo's `select-best` across its siblings. */
export function caseUsesLlm(c: Pick<EvalCase, 'evaluators' | 'compare'>): boolean {
  return c.evaluators.some(usesLlm) || (c.compare?.selectBest ?? null) !== null;
}

/**
 * The default judge, when anything needs it: missing credentials are an input error found before
 * any call. A replayed judge needs no key (its answers come from the recorded cache).
 */
export function defaultJudgeEndpoint(
  config: Config,
  needed: boolean,
  names: SettingNames = ACTION_SETTINGS,
): { endpoint: EndpointConfig | null; diagnostics: Diagnostic[]; unavailable?: boolean } {
  if (!needed) return { endpoint: null, diagnostics: [] };
  // A fork's pull_request run gets no secrets: no key, and a key-based endpoint, is not an input
  // error there but the trusted stage's job (the cases that need the judge are skipped).
  if (config.untrustedFork && !config.judge.apiKey && !forkCanUseGitHubModels(config))
    return { endpoint: null, diagnostics: [], unavailable: true };
  if (config.cacheMode === 'replay') {
    const r = judgeEndpoint({
      ...config,
      judge: { ...config.judge, apiKey: config.judge.apiKey ?? 'replay' },
    });
    return { endpoint: 'endpoint' in r ? r.endpoint : null, diagnostics: [] };
  }
  const r = judgeEndpoint(config, names);
  if ('endpoint' in r) return { endpoint: r.endpoint, diagnostics: [] };
  return {
    endpoint: null,
    diagnostics: [
      { severity: 'error', file: 'inputs', line: 0, column: 0, rule: 'judge-credentials', message: r.error },
    ],
  };
}
