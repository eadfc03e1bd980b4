import type { Environment } from 'nunjucks';
import { RubricEvalError } from '../../core/errors.js';

/**
 * promptfoo renders prompts and assertion values with Nunjucks; so does this, so the same
 * template gives the same prompt. Configured as promptfoo configures it (no autoescape, its
 * `load` filter) but safer: no loader at all (`{% include %}` and `{% import %}` reach no file)
 * and no `env` global (promptfoo exposes the process environment there; here no template sees a
 * secret). A template with Nunjucks syntax is the suite's code: the judge stage never renders a
 * pull request's (see `templatesAsData` in core/workspace.ts).
 */

/** Nunjucks beyond `{{ var }}`: a tag, a comment, a filter, or an expression. */
const NUNJUCKS = /\{%|\{#|\{\{(?!\s*[A-Za-z_][\w.]*\s*\}\})/;

export const usesNunjucks = (template: string): boolean => NUNJUCKS.test(template);

let engine: Environment | undefined;
/** A template needed Nunjucks before it was loaded (see `withNunjucks`). */
let wanted = false;

/**
 * Nunjucks is loaded when a suite's template needs it, not at start-up: only promptfoo-shaped
 * suites with templates beyond `{{ var }}` pay for it.
 */
export async function loadNunjucks(): Promise<void> {
  if (engine) return;
  const nunjucks = (await import(/* webpackMode: "eager" */ 'nunjucks')).default;
  engine = new nunjucks.Environment([], { autoescape: false, throwOnUndefined: false });
  engine.addFilter('load', (s: string) => JSON.parse(s) as unknown);
}

/**
 * Runs a synchronous suite load with Nunjucks at hand: when the load met a template that needed it
 * before it was loaded (that load is discarded), Nunjucks is loaded and the suite loaded again.
 */
export async function withNunjucks<R>(load: () => R): Promise<R> {
  if (engine) return load();
  wanted = false;
  const first = load();
  if (!wanted) return first;
  await loadNunjucks();
  return load();
}

/** The template rendered with the vars; a template error is thrown with Nunjucks' message. */
export function renderNunjucks(template: string, vars: Record<string, unknown>): string {
  if (!engine) {
    wanted = true;
    throw new RubricEvalError('Nunjucks is not loaded (the suite is loaded again with it)');
  }
  try {
    return engine.renderString(template, vars);
  } catch (err) {
    // Nunjucks prefixes "(unknown path)" and its stack of template frames: keep the reason.
    const message = (err as Error).message
      .replace(/^\(unknown path\)\s*/, '')
      .split('\n')
      .filter(Boolean);
    throw new RubricEvalError(
      message
        .at(-1)
        ?.trim()
        .replace(/^Error: /, '') ?? 'the template does not render',
    );
  }
}
