/**
 * Fills a template in one pass: each placeholder is replaced by its value, and a value is never
 * read again, so nothing in it is interpreted: no `$&`, `$'` or `` $` `` expansion (a function
 * replacement), and a placeholder written inside a value stays as the value's own text.
 * A placeholder whose name has no value stays as written, so a typo shows.
 *
 * `placeholder` must be a global RegExp whose first group is the name.
 */
export function fillTemplate(
  template: string,
  placeholder: RegExp,
  valueOf: (name: string) => string | undefined,
): string {
  if (!placeholder.global) throw new Error(`fillTemplate needs a global pattern, got ${placeholder}`);
  return template.replace(placeholder, (whole: string, name: string) => valueOf(name) ?? whole);
}
