/**
 * Typo detection for keys, flags and names: the optimal-string-alignment distance (Levenshtein
 * plus swapping two neighbours, the commonest slip: `wieght`, `requried`) and the nearest candidate.
 */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * How far a word may be from a known one and still be a slip of the keyboard rather than another
 * word: none for one or two letters (any other word is that close), one for short words (`cwd`,
 * `type`), two from five letters on.
 */
function typoBudget(known: string): number {
  return known.length <= 2 ? 0 : known.length <= 4 ? 1 : 2;
}

/** The known word `word` is most likely a misspelling of, if any is within its typo budget. */
export function didYouMean(word: string, known: Iterable<string>): string | null {
  let best: { word: string; distance: number } | null = null;
  const lower = word.toLowerCase();
  for (const k of known) {
    const distance = editDistance(lower, k.toLowerCase());
    if (distance === 0 && word !== k) return k; // only the case differs
    if (distance > 0 && distance <= typoBudget(k) && (!best || distance < best.distance))
      best = { word: k, distance };
  }
  return best?.word ?? null;
}

/** The nearest known word within two edits, for a softer hint where a near miss may be legitimate. */
export function nearest(word: string, known: Iterable<string>, within = 2): string | null {
  let best: { word: string; distance: number } | null = null;
  for (const k of known) {
    const distance = editDistance(word.toLowerCase(), k.toLowerCase());
    if (distance > 0 && distance <= within && (!best || distance < best.distance))
      best = { word: k, distance };
  }
  return best?.word ?? null;
}
