/** Percentiles and rounding shared by the benchmarks. */

/** The `p`th percentile (nearest rank) of `values`; NaN when empty. */
export function pct(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

export const round = (n: number) => Math.round(n * 100) / 100;


/** A seeded uniform random number generator in [0, 1): every run draws the same data. */
export { mulberry32 as seededRandom } from '../src/storage/contract/audit-data.js';
