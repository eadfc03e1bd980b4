/**
 * Tolerance for comparing scores: they are sums of weighted fractions, so 0.7 * 0.8 + 0.3 * 0.8
 * lands a hair under 0.8 and 0.7 - 0.6 a hair under 0.1. A score within it of a threshold or a
 * margin counts as meeting it.
 */
export const EPSILON = 1e-9;
