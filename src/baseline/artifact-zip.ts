import { strFromU8, unzipSync } from 'fflate';
import { MAX_RESULTS_BYTES } from './read-results.js';
import { inflateEntry } from './zip-entry.js';

const base = (name: string) => name.split('/').pop() ?? name;

/** A name as an unzipper would write it: `./a`, `a` and `a\\` name one file. */
const fileName = (name: string) => name.replace(/\\/g, '/').replace(/^(\.\/)+/, '');

/**
 * Why the archive is refused before anything is inflated, or null: two entries of one name (an
 * unzipper inflates every one of them, whatever the directory said about the first), or entries
 * whose declared sizes together pass `maxBytes` (the most a reader would inflate).
 */
function refuseEntries(entries: readonly { name: string; size: number }[], maxBytes: number): string | null {
  const seen = new Set<string>();
  let total = 0;
  for (const e of entries) {
    const name = fileName(e.name);
    if (seen.has(name)) return `the artifact holds two entries named ${name}: refused`;
    seen.add(name);
    total += e.size;
  }
  if (total > maxBytes)
    return `the artifact's ${entries.length} files declare ${total} bytes in all, over the ${maxBytes} limit`;
  return null;
}

/**
 * The results file inside an artifact's zip: the one `.json`, or the one named like
 * `results-file` when there are several. A hostile archive cannot expand past the cap: one
 * entry per name, the declared sizes of all entries within `maxBytes` (checked before any
 * inflating), and the one entry read is inflated no further than its declared size, which it
 * must match exactly (src/baseline/zip-entry.ts). Never throws: a reason instead.
 */
export function resultsFromZip(
  zip: Uint8Array,
  resultsFileName: string,
  maxBytes = MAX_RESULTS_BYTES,
): { name: string; text: string } | { error: string } {
  const entries: { name: string; size: number }[] = [];
  try {
    // First pass reads the directory only: the filter sees every entry and inflates none.
    unzipSync(zip, {
      filter: (f) => {
        if (!f.name.endsWith('/')) entries.push({ name: f.name, size: f.originalSize });
        return false;
      },
    });
  } catch (err) {
    return { error: `the artifact is not a readable zip (${(err as Error).message})` };
  }
  const refused = refuseEntries(entries, maxBytes);
  if (refused) return { error: refused };
  const json = entries.filter((e) => e.name.toLowerCase().endsWith('.json'));
  const wanted = base(resultsFileName);
  const pick = json.length === 1 ? json[0] : json.find((e) => base(e.name) === wanted);
  if (!pick)
    return {
      error:
        json.length === 0
          ? `the artifact holds no .json file (${entries.length} file${entries.length === 1 ? '' : 's'})`
          : `the artifact holds ${json.length} .json files and none is named ${wanted}`,
    };
  if (pick.size > maxBytes)
    return {
      error: `${pick.name} in the artifact is ${pick.size} bytes, over the ${maxBytes} limit`,
    };
  const read = inflateEntry(zip, pick.name);
  return 'error' in read ? read : { name: pick.name, text: strFromU8(read.bytes) };
}
