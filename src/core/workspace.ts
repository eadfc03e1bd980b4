import { existsSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { FileReadRefused, present, readRegularFile, tooLarge } from './checkout-read.js';
import { excerpt } from './diagnostics.js';

/** Files larger than this are refused: suites and attachments are text written by people. */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;

export type Resolution =
  { ok: true; absPath: string } | { ok: false; rule: 'escapes-workspace' | 'missing-file'; message: string };

/**
 * The folder everything resolves against. Reads go through here so that no reference can
 * leave it (by `..`, an absolute path or a symlink) and each file is read once per run.
 */
export class Workspace {
  readonly root: string;
  private readonly realRoot: string;
  /** Texts read this run, with the size they had on disk: a later reader may allow less. */
  private readonly textCache = new Map<string, { text: string; bytes: number }>();

  /**
   * @param templatesAsData the files are a pull request's, read as data where secrets are at hand
   *   (the judge stage's head cases): a template that is code (Nunjucks) is not rendered.
   */
  constructor(
    root: string,
    readonly templatesAsData = false,
  ) {
    this.root = path.resolve(root);
    this.realRoot = existsSync(this.root) ? realpathSync(this.root) : this.root;
  }

  /** Path for messages: relative to the root with forward slashes, or absolute if outside. */
  display(absPath: string): string {
    const rel = path.relative(this.root, absPath);
    if (rel === '') return '.';
    if (!lexicallyInside(this.root, absPath)) return absPath;
    return rel.split(path.sep).join('/');
  }

  /** True when `absPath`, after following symlinks, is inside the workspace. */
  contains(absPath: string): boolean {
    if (!lexicallyInside(this.root, absPath)) return false;
    let real: string;
    try {
      real = realpathSync(absPath);
    } catch {
      return true; // does not exist (yet): the lexical check is all there is
    }
    return lexicallyInside(this.realRoot, real);
  }

  /**
   * Resolves a file reference from a suite as AgentV v2.6.1 does: an absolute path as it is,
   * then the path without its leading separators against `fromDir` and each ancestor up to the
   * root (so `/x.md` is found beside the suite first). The first existing candidate wins. An
   * absolute path outside the workspace is never looked at, not even to see whether it exists
   * (that would tell a pull request what the runner holds): only its trimmed form is searched.
   */
  resolveReference(value: string, fromDir: string): Resolution {
    const absolute = path.isAbsolute(value) ? path.normalize(value) : null;
    const trimmed = value.replace(/^[/\\]+/, '') || value;
    const candidates: string[] = absolute && lexicallyInside(this.root, absolute) ? [absolute] : [];
    let dir = path.resolve(fromDir);
    for (;;) {
      candidates.push(path.resolve(dir, trimmed));
      if (dir === this.root || !lexicallyInside(this.root, dir)) break;
      const parent = path.dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
    const first = candidates[0]!;
    if (!lexicallyInside(this.root, first)) {
      return {
        ok: false,
        rule: 'escapes-workspace',
        message: `'${excerpt(value)}' resolves outside the workspace (${this.root})`,
      };
    }
    for (const candidate of candidates) {
      if (!lexicallyInside(this.root, candidate) || !existsSync(candidate)) continue;
      if (!this.contains(candidate)) {
        return {
          ok: false,
          rule: 'escapes-workspace',
          message: `'${excerpt(value)}' is a symlink to a place outside the workspace`,
        };
      }
      if (!statSync(candidate).isFile()) continue;
      return { ok: true, absPath: candidate };
    }
    const searched = [
      ...new Set(candidates.filter((c) => lexicallyInside(this.root, c)).map((c) => this.display(c))),
    ];
    return {
      ok: false,
      rule: 'missing-file',
      message: `file '${excerpt(value)}' not found (looked for ${excerpt(searched.join(', '), 400)})`,
    };
  }

  /**
   * The one reader for the checkout: reads a text file as UTF-8 with CRLF folded to LF, once per
   * run, only when it is inside the workspace after links are resolved, a regular file and at
   * most `maxBytes`. Throws FileReadRefused naming the file (`rule`: escapes-workspace,
   * missing-file, not-a-file, too-large) otherwise. `keep: false` for a large file read once (a
   * shard's results): it is not held for the rest of the run.
   */
  readText(absPath: string, maxBytes = MAX_FILE_BYTES, keep = true): string {
    const cached = this.textCache.get(absPath);
    if (cached !== undefined) {
      if (cached.bytes > maxBytes)
        throw new FileReadRefused('too-large', absPath, tooLarge(cached.bytes, maxBytes));
      return cached.text;
    }
    const raw = readRegularFile(this.realInside(absPath), maxBytes, this.display(absPath));
    const text = raw.replace(/\r\n/g, '\n');
    if (keep) this.textCache.set(absPath, { text, bytes: Buffer.byteLength(raw, 'utf8') });
    return text;
  }

  /** Whether anything stands at `absPath` inside the workspace (a link too, wherever it points: reading it says). */
  has(absPath: string): boolean {
    return lexicallyInside(this.root, absPath) && present(absPath);
  }

  /** Whether `absPath` is a folder inside the workspace after links are resolved. */
  isDirectory(absPath: string): boolean {
    try {
      return statSync(this.realInside(absPath)).isDirectory();
    } catch {
      return false;
    }
  }

  /** `absPath` with its links resolved, when that is inside the workspace; else FileReadRefused. */
  private realInside(absPath: string): string {
    const shown = this.display(absPath);
    if (!lexicallyInside(this.root, absPath))
      throw new FileReadRefused(
        'escapes-workspace',
        absPath,
        `${shown} is outside the workspace (${this.root}): refused`,
      );
    let real: string;
    try {
      real = realpathSync(absPath);
    } catch {
      throw new FileReadRefused('missing-file', absPath, `${shown} not found`);
    }
    if (!lexicallyInside(this.realRoot, real))
      throw new FileReadRefused(
        'escapes-workspace',
        absPath,
        `${shown} is a link to a place outside the workspace: refused`,
      );
    return real;
  }
}

function lexicallyInside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}
