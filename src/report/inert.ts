/**
 * The one door out to GitHub for text rubric-eval did not write (answers, judge reasoning, gate
 * and target output, ids, titles, suite descriptions, error messages). Everything quoted in the
 * PR comment or the job summary goes through here, so the text reads as written but nothing in it
 * is live: no mention notifies anyone, no `#12` or `owner/repo#7` cross-references another thread,
 * no link or image loads, no raw HTML renders, and no bidirectional control reorders what a
 * reviewer sees.
 */

/** Joins two characters invisibly: GitHub's autolinkers stop matching at it, readers see nothing. */
const ZWJ = '\u200d';

/**
 * Bidirectional controls (Trojan Source) and other C0/C1 controls: shown as a visible code point,
 * so a reviewer sees that they were there. Tab, line feed and carriage return are kept.
 */
const CONTROLS =
  // eslint-disable-next-line no-control-regex -- matching controls is the point
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function showControls(text: string): string {
  return text.replace(
    CONTROLS,
    (c) => `⟨U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}⟩`,
  );
}

/** Characters that markdown or HTML would act on; each is backslash-escaped or entity-encoded. */
const ESCAPES: Record<string, string> = {
  '\\': '\\\\',
  '`': '\\`',
  '[': '\\[',
  ']': '\\]',
  '|': '\\|',
  '<': '&lt;',
  '>': '&gt;',
  '&': '&amp;',
  // GitHub renders $…$ as math, whose commands can style or link text.
  $: '\\$',
};

/**
 * Quoted text as inert inline markdown. Escapes what would start a link, an image, a code span,
 * raw HTML, an entity, math or a table cell, and breaks with an invisible joiner what GitHub links
 * without markup: `@user`, `@org/team`, `#12`, `owner/repo#7`, `GH-12`, bare URLs, `www.` hosts
 * and e-mail addresses.
 */
export function inert(text: string): string {
  return showControls(unlinked(text.replace(/[\\`[\]|<>&$]/g, (c) => ESCAPES[c]!)));
}

/**
 * Quoted text for a surface GitHub shows as plain text (a check run annotation's title and
 * message): no markup renders there, so nothing is escaped, but mentions and references are
 * still broken and controls shown, as in `inert`.
 */
export function inertPlain(text: string): string {
  return showControls(unlinked(text));
}

/** Breaks with an invisible joiner what GitHub links without markup. */
function unlinked(text: string): string {
  return (
    text
      // mentions, team mentions and e-mail addresses all hinge on the `@`
      .replace(/@(?=[\p{L}\p{N}_-])/gu, `@${ZWJ}`)
      // #12, owner/repo#12 and GH-12
      .replace(/#(?=\p{N})/gu, `#${ZWJ}`)
      .replace(/\bGH-(?=\p{N})/giu, (m) => `${m.slice(0, 2)}${ZWJ}-`)
      // bare URLs (http://, https://, ftp://, any scheme://) and www. hosts
      .replace(/:(?=\/\/)/g, `:${ZWJ}`)
      .replace(/\b(www)\./gi, `$1${ZWJ}.`)
      // mailto: and xmpp: autolinks
      .replace(/\b(mailto|xmpp):/gi, `$1${ZWJ}:`)
  );
}

/** The longest run of backticks in the text. */
function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return longest;
}

/**
 * Code shown as written, as a CommonMark code span: the text unescaped between backtick runs
 * longer than any inside it. GitHub links nothing inside a code span. In a table (`table: true`)
 * a pipe still ends the cell even inside code, so it is the one character escaped (GitHub shows
 * `\|` in a table cell's code span as `|`). Line breaks become spaces, as CommonMark does.
 */
export function code(text: string, opts: { table?: boolean } = {}): string {
  let body = showControls(text.replace(/\r\n?|\n/g, ' '));
  if (opts.table) body = body.replace(/\|/g, '\\|');
  if (body === '') return '` `';
  const fence = '`'.repeat(longestBacktickRun(body) + 1);
  // A space on each side keeps a leading or trailing backtick from joining the fence.
  const strippable = body.startsWith(' ') && body.endsWith(' ') && body.trim() !== '';
  const pad = body.startsWith('`') || body.endsWith('`') || strippable ? ' ' : '';
  return `${fence}${pad}${body}${pad}${fence}`;
}

/** HTML-encodes text for an HTML element or attribute. */
function htmlText(text: string): string {
  return showControls(text).replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

/**
 * Code as an HTML `<code>` element, for places where markdown is not read (inside `<summary>`).
 * The text is entity-encoded; GitHub links nothing inside `<code>`. Mentions are broken too,
 * because some renderers of the summary treat a `<summary>` as plain HTML text.
 */
export function codeHtml(text: string): string {
  return `<code>${htmlText(text.replace(/\s+/g, ' ')).replace(/@/g, `@${ZWJ}`)}</code>`;
}

/**
 * A multi-line block of quoted output as a fenced code block, shown as written: the fence is a
 * backtick run longer than any inside the text, so no line of it can close the block.
 */
export function codeBlock(text: string, info = 'text'): string {
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(text) + 1));
  return `${fence}${info}\n${showControls(text)}\n${fence}`;
}

/**
 * Quoted text for one line of the report (a table cell, a list item): flattened to one line,
 * bounded to `max` characters of the original, and made inert. Every piece of
 * text rubric-eval did not write goes through here, through `codeCell()` or through this module.
 */
export function cell(text: string | null | undefined, max = 160): string {
  if (!text) return '';
  return inert(bounded(text, max));
}

/** Quoted code for a table cell or a line: shown as written in a code span, bounded, one line. */
export function codeCell(text: string | null | undefined, max = 100): string {
  if (!text) return '';
  return code(bounded(text, max), { table: true });
}

/** One line of at most `max` characters (code points, so no pair is split). */
export function bounded(text: string, max: number): string {
  const flat = [...text.replace(/\s+/g, ' ').trim()];
  return flat.length > max ? `${flat.slice(0, max - 1).join('')}…` : flat.join('');
}
