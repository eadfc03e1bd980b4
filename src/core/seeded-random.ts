/**
 * mulberry32: a small 32-bit seeded PRNG of our own, so what it orders or resamples is the same on
 * every machine and Node version (Math.random cannot be seeded). Returns floats in [0, 1). Judge
 * samples' item orders and calibration's bootstrap interval both draw from it.
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
