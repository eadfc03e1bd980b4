/** Names of environment variables whose values are treated as secrets. */
const SECRET_NAME = /TOKEN|KEY|SECRET|PASSWORD|PASSWD|CREDENTIAL/i;
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
  private secrets: string[];

  constructor(secrets: Iterable<string>) {
    this.secrets = [
      ...new Set([...secrets].flatMap(withLines).filter((s) => s.length >= MIN_SECRET_LENGTH)),
    ].sort((a, b) => b.length - a.length);
  }

  /**
   * Secrets learnt during the run (values resolved into a target's settings); streams opened
   * after this redact them too. Returns the parts newly known, for the runner's own mask.
   */
  add(secrets: Iterable<string>): string[] {
    const known = new Set(this.secrets);
    const fresh = [
      ...new Set(
        [...secrets].flatMap(withLines).filter((s) => s.length >= MIN_SECRET_LENGTH && !known.has(s)),
      ),
    ];
    if (fresh.length > 0) this.secrets = [...this.secrets, ...fresh].sort((a, b) => b.length - a.length);
    return fresh;
  }

  /**
   * A redactor for one byte stream (a command's stdout or stderr) that replaces secrets before
   * any buffer keeps or cuts the bytes: a secret split across chunks, or straddling where the
   * kept head and tail are cut, never survives in fragments.
   */
  stream(): StreamRedactor {
    return new StreamRedactor(this.secrets.map((s) => Buffer.from(s, 'utf8')));
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

  /**
   * Copies only what changes: a result with no secret in it is returned as is, allocation-free
   * (plain index and key loops: every case result of a run goes through here).
   */
  private walk(value: unknown): unknown {
    if (typeof value === 'string') return this.redact(value);
    if (Array.isArray(value)) {
      let out: unknown[] | null = null;
      for (let i = 0; i < value.length; i++) {
        const v: unknown = value[i];
        const r = this.walk(v);
        if (r !== v) (out ??= [...value])[i] = r;
      }
      return out ?? value;
    }
    if (value !== null && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      let out: Record<string, unknown> | null = null;
      for (const k of Object.keys(record)) {
        const v = record[k];
        const r = this.walk(v);
        if (r !== v) (out ??= { ...record })[k] = r;
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
 * A multi-line secret is also masked line by line, as the runner masks it: output that prints one
 * line of a key (or re-wraps it) does not carry that line out.
 */
export function withLines(secret: string): string[] {
  if (!secret) return [];
  if (!/[\r\n]/.test(secret)) return [secret];
  const lines = secret.split(/\r?\n|\r/).flatMap((l) => [l, l.trim()]);
  return [secret, secret.replace(/\r\n/g, '\n'), ...lines];
}

const REDACTED = Buffer.from('***');

/** See `Redactor.stream`. Holds back the last (longest secret - 1) bytes until more arrive. */
export class StreamRedactor {
  private pending: Buffer = Buffer.alloc(0);
  private readonly hold: number;

  constructor(private readonly secrets: readonly Buffer[]) {
    this.hold = Math.max(0, ...secrets.map((s) => s.length - 1));
  }

  /** The bytes now known to hold no (part of a) secret, redacted. */
  push(chunk: Buffer): Buffer {
    if (this.secrets.length === 0) return chunk;
    const data = replaceSecrets(
      this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk,
      this.secrets,
    );
    const keep = Math.min(this.hold, data.length);
    this.pending = Buffer.from(data.subarray(data.length - keep));
    return data.subarray(0, data.length - keep);
  }

  /** The held-back bytes at the end of the stream. */
  end(): Buffer {
    const rest = this.pending;
    this.pending = Buffer.alloc(0);
    return rest;
  }
}

function replaceSecrets(data: Buffer, secrets: readonly Buffer[]): Buffer {
  let out = data;
  for (const secret of secrets) {
    let at = out.indexOf(secret);
    if (at < 0) continue;
    const parts: Buffer[] = [];
    let from = 0;
    for (; at >= 0; at = out.indexOf(secret, from)) {
      parts.push(out.subarray(from, at), REDACTED);
      from = at + secret.length;
    }
    parts.push(out.subarray(from));
    out = Buffer.concat(parts);
  }
  return out;
}

/**
 * The environment for processes we start (gates, code judges, CLI targets), and the only one a
 * `${{ VAR }}` template in a targets file or suite reads: without the GitHub token, the judge key,
 * the runner's `INPUT_*` variables (which carry the action's inputs, keys included) or its
 * `ACTIONS_*` ones (runtime and cache tokens, the OIDC request token and URL). Other variables
 * pass, so gates can use their own credentials; their values are still redacted from whatever
 * is kept of the output.
 */
export function childEnv(env: NodeJS.ProcessEnv, withheld: readonly string[]): NodeJS.ProcessEnv {
  const drop = new Set(withheld.filter(Boolean));
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (isWithheldName(name)) continue;
    if (drop.has(value)) continue;
    out[name] = value;
  }
  return out;
}

/** Variables no child process (and so no template) ever sees, whatever their value. */
export function isWithheldName(name: string): boolean {
  return (
    name.startsWith('INPUT_') || name.startsWith('ACTIONS_') || name === 'GITHUB_TOKEN' || name === 'GH_TOKEN'
  );
}
