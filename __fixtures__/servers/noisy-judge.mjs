// A noisy checklist judge for the scripted server: each rubric item carries the probability that
// the judge calls it satisfied, written in the item itself as `[p=0.9]`. Draws are seeded by the
// request body and the run's seed, so a run is reproducible whatever order concurrent requests
// arrive in, while every sample (another temperature, seed and item order) draws afresh.
import { createHash } from 'node:crypto';
import { seededRandom } from './openai-server.mjs';

/** `id → p` from a checklist prompt: `[rubric-1] (required) (weight 1): text [p=0.9]`. */
export function itemProbabilities(text) {
  const out = new Map();
  for (const m of text.matchAll(/^\[([^\]\n]+)\][^\n]*\[p=([0-9.]+)\]\s*$/gm)) out.set(m[1], Number(m[2]));
  return out;
}

function bodySeed(body, seed) {
  const h = createHash('sha256').update(JSON.stringify(body)).digest();
  return (h.readUInt32LE(0) ^ seed) >>> 0;
}

/**
 * A `respond` function for startOpenAIServer: checklist items satisfied with their `[p=…]`
 * (an item without one is satisfied). `truth: true` answers the majority truth instead (p > 0.5),
 * without noise.
 */
export function noisyChecklist({ seed = 1, truth = false } = {}) {
  return ({ body, desc }) => {
    if (desc.mode !== 'checklist') return undefined;
    const p = itemProbabilities(desc.text);
    const random = seededRandom(bodySeed(body, seed));
    return {
      checks: desc.ids.map((id) => {
        const prob = p.get(id) ?? 1;
        const satisfied = truth ? prob > 0.5 : random() < prob;
        return { id, reasoning: `${id} ${satisfied ? 'met' : 'not met'}`, satisfied };
      }),
      overall_reasoning: 'judged',
    };
  };
}
