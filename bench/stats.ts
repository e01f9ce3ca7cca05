/** Percentiles and rounding shared by the benchmarks. */

/** The `p`th percentile (nearest rank) of `values`; NaN when empty. */
export function pct(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

export const round = (n: number) => Math.round(n * 100) / 100;

/** The middle value of `values` (the mean of the two middle ones for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** A seeded uniform random number generator in [0, 1): every run draws the same data. */
export { mulberry32 as seededRandom } from '../src/storage/contract/audit-data.js';
