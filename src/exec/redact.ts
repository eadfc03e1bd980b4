/** Names of environment variables whose values are treated as secrets. */
export const SECRET_NAME = /TOKEN|KEY|SECRET|PASSWORD|PASSWD|CREDENTIAL/i;
/** Values this short are not redacted: replacing every "1" or "true" would garble output and hide nothing. */
const MIN_SECRET_LENGTH = 6;

/** Secret values from an environment: every variable whose name looks like it holds one. */
export function secretsFromEnv(env: NodeJS.ProcessEnv): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value && SECRET_NAME.test(name) && value.length >= MIN_SECRET_LENGTH) out.push(value);
  }
  return out;
}

/**
 * Replaces secret values with `***` in any text that leaves the process (gate output, comments,
 * the summary, the results file, logs). Longer secrets first, so one that contains another is
 * replaced whole.
 */
export class Redactor {
  private readonly secrets: string[];

  constructor(secrets: Iterable<string>) {
    this.secrets = [...new Set([...secrets].filter((s) => s && s.length >= MIN_SECRET_LENGTH))].sort(
      (a, b) => b.length - a.length,
    );
  }

  redact(text: string): string {
    let out = text;
    for (const s of this.secrets) if (out.includes(s)) out = out.split(s).join('***');
    return out;
  }

  /** Redacts every string inside a JSON-able value. */
  redactDeep<T>(value: T): T {
    if (this.secrets.length === 0) return value;
    return this.walk(value) as T;
  }

  /** Copies only what changes: a result with no secret in it is returned as is, allocation-free. */
  private walk(value: unknown): unknown {
    if (typeof value === 'string') return this.redact(value);
    if (Array.isArray(value)) {
      let out: unknown[] | null = null;
      value.forEach((v, i) => {
        const r = this.walk(v);
        if (r !== v) (out ??= [...value])[i] = r;
      });
      return out ?? value;
    }
    if (value !== null && typeof value === 'object') {
      let out: Record<string, unknown> | null = null;
      for (const [k, v] of Object.entries(value)) {
        const r = this.walk(v);
        if (r !== v) (out ??= { ...(value as Record<string, unknown>) })[k] = r;
      }
      return out ?? value;
    }
    return value;
  }

  get count(): number {
    return this.secrets.length;
  }
}

/**
 * The environment for processes we start (gates, code judges, CLI targets): without the GitHub
 * token, the judge key, or the runner's `INPUT_*` variables (which carry the action's inputs,
 * keys included). Other variables pass, so gates can use their own credentials; their values
 * are still redacted from whatever is kept of the output.
 */
export function childEnv(env: NodeJS.ProcessEnv, withheld: readonly string[]): NodeJS.ProcessEnv {
  const drop = new Set(withheld.filter(Boolean));
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (name.startsWith('INPUT_')) continue;
    if (
      name === 'GITHUB_TOKEN' ||
      name === 'GH_TOKEN' ||
      name === 'ACTIONS_RUNTIME_TOKEN' ||
      name === 'ACTIONS_ID_TOKEN_REQUEST_TOKEN'
    )
      continue;
    if (drop.has(value)) continue;
    out[name] = value;
  }
  return out;
}
