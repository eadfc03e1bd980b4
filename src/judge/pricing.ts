/**
 * USD per million tokens (input, output) for common judge models, for the cost estimate in
 * reports. Prices change: this is an estimate, overridable with the `judge-prices` input.
 */
export type PriceTable = Record<string, { input: number; output: number }>;

export const DEFAULT_PRICES: PriceTable = {
  'gpt-4.1': { input: 2, output: 8 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'gpt-4o': { input: 2.5, output: 10 },
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  'gpt-5': { input: 1.25, output: 10 },
  'gpt-5-mini': { input: 0.25, output: 2 },
  'gpt-5-nano': { input: 0.05, output: 0.4 },
  'o3-mini': { input: 1.1, output: 4.4 },
  'o4-mini': { input: 1.1, output: 4.4 },
  // promptfoo `similar`'s embeddings (input only).
  'text-embedding-3-small': { input: 0.02, output: 0 },
  'text-embedding-3-large': { input: 0.13, output: 0 },
  'text-embedding-ada-002': { input: 0.1, output: 0 },
};

/** `openai/gpt-4.1-mini` (GitHub Models) and dated ids price as their family. */
export function priceFor(model: string, table: PriceTable): { input: number; output: number } | null {
  const bare = model.replace(/^[^/]+\//, '').toLowerCase();
  if (table[model]) return table[model]!;
  if (table[bare]) return table[bare]!;
  const family = Object.keys(table)
    .filter((k) => bare.startsWith(`${k}-`))
    .sort((a, b) => b.length - a.length)[0];
  return family ? table[family]! : null;
}

export function estimateCost(
  model: string,
  promptTokens: number,
  completionTokens: number,
  table: PriceTable,
): number | null {
  const p = priceFor(model, table);
  if (!p) return null;
  return (promptTokens * p.input + completionTokens * p.output) / 1_000_000;
}
