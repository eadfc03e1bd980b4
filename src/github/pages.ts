import { type Octokit } from './client.js';

/** Most pages read from one list: 100 items each, so 5,000 comments or files. */
const MAX_PAGES = 50;

export interface PageList<T> {
  items: T[];
  /** Why the list stopped early (a page cap, a `next` link seen before); null when it ended. */
  stopped: string | null;
}

/**
 * Every page of a GitHub list, bounded: at most `maxPages` requests, and it stops when a `next`
 * link names a page already read (a server that loops would otherwise be followed forever).
 */
export async function boundedPages<T>(
  octokit: Octokit,
  method: (params: never) => Promise<{ data: T[] }>,
  params: Record<string, unknown>,
  opts: { maxPages?: number },
): Promise<PageList<T>> {
  const maxPages = opts.maxPages ?? MAX_PAGES;
  const seen = new Set<string>();
  const items: T[] = [];
  const pages = octokit.paginate.iterator(
    method as never,
    { ...params, per_page: 100 } as never,
  ) as AsyncIterable<{
    data: T[];
    url: string;
    headers: { link?: string };
  }>;
  for await (const page of pages) {
    if (seen.has(page.url)) return { items, stopped: `the next link repeated ${page.url}` };
    seen.add(page.url);
    items.push(...page.data);
    // Stopped only when there was more to read: a list that fills the last page exactly is whole.
    if (seen.size >= maxPages && /rel="next"/.test(page.headers.link ?? ''))
      return { items, stopped: `stopped after ${maxPages} pages` };
  }
  return { items, stopped: null };
}
