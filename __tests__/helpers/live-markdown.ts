import MarkdownIt from 'markdown-it';

/**
 * Renders a comment body as GitHub would read it (CommonMark + GFM tables and autolinks, raw HTML
 * allowed) and lists everything in it that is live: a link, an image, an HTML element or comment
 * the action does not write itself, and, in text outside code, what GitHub turns into a
 * notification or a cross-reference (`@user`, `@org/team`, `#12`, `owner/repo#7`, `GH-12`), a
 * bare URL or `www.` host it would autolink, or a bidirectional control.
 */
const md = new MarkdownIt({ html: true, linkify: true });
// GitHub autolinks only www. hosts, scheme URLs and ASCII e-mail addresses (GFM spec), not bare
// domains nor addresses with invisible characters: those are checked in the text below.
md.linkify.set({ fuzzyLink: false, fuzzyEmail: false });

/** The tags markdown itself produces, plus the few the report writes as HTML. */
const OWN_TAGS = new Set(
  'p table thead tbody tr th td code pre strong em ul ol li h1 h2 h3 h4 h5 h6 blockquote hr br s del details summary sub'.split(
    ' ',
  ),
);
const OWN_COMMENT = /^<!-- rubric-eval(?:-history:[A-Za-z0-9+/=]*|-run:\d+\.\d+)? -->$/;

function renderGitHub(markdown: string): string {
  return md.render(markdown);
}

export function liveParts(markdown: string, allowedLinks: readonly string[] = []): string[] {
  const html = renderGitHub(markdown);
  const live: string[] = [];
  for (const m of html.matchAll(/<!--[\s\S]*?-->|<\/?([A-Za-z][\w-]*)([^>]*)>/g)) {
    const [whole, tag, attrs] = m;
    if (!tag) {
      if (!OWN_COMMENT.test(whole)) live.push(`html comment ${whole}`);
      continue;
    }
    const name = tag.toLowerCase();
    if (name === 'a') {
      const href = /href="([^"]*)"/.exec(attrs ?? '')?.[1];
      if (href !== undefined && !allowedLinks.includes(href)) live.push(`link ${href}`);
      continue;
    }
    if (!OWN_TAGS.has(name)) live.push(`element <${name}${attrs}>`);
    // A markdown-made element with an attribute from the text (e.g. <td onclick=…>) is live too.
    else if (attrs && !/^(?: (?:class|style|open)(?:="[^"]*")?)*$/.test(attrs))
      live.push(`attribute ${whole}`);
  }
  const prose = decode(
    html
      .replace(/<pre[\s\S]*?<\/pre>/g, ' ')
      .replace(/<code>[\s\S]*?<\/code>/g, ' ')
      .replace(/<a [\s\S]*?<\/a>/g, ' ')
      .replace(/<[^>]+>/g, ' '),
  );
  const patterns: [string, RegExp][] = [
    ['mention', /(?<![\p{L}\p{N}_])@[\p{L}\p{N}]/u],
    ['issue reference', /(?<![\p{L}\p{N}_])#\p{N}/u],
    ['issue reference', /\bGH-\p{N}/iu],
    ['autolink', /\b[a-z][a-z0-9+.-]*:\/\//i],
    ['autolink', /\bwww\./i],
    ['e-mail autolink', /[a-zA-Z0-9.\-_+]@[a-zA-Z0-9\-_]+\.[a-zA-Z0-9\-_]/],
    ['bidi control', /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/],
  ];
  for (const [what, re] of patterns) {
    const hit = re.exec(prose);
    if (hit) live.push(`${what}: …${prose.slice(Math.max(0, hit.index - 20), hit.index + 20)}…`);
  }
  if (/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/.test(html)) live.push('bidi control inside code');
  return live;
}

/** The text a reader sees: tags dropped, entities decoded, the invisible joiners removed. */
export function visibleText(markdown: string): string {
  return decode(renderGitHub(markdown).replace(/<[^>]+>/g, ' '))
    .replace(/\u200d/g, '')
    .replace(/\s+/g, ' ');
}

function decode(html: string): string {
  return html
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&#(\d+);/g, (_, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&amp;/g, '&');
}
