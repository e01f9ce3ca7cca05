import { invalidField } from '../listener/errors.js';

/**
 * Parse a `limit`-style query value: absent → `fallback`; not an integer → 400; otherwise clamped
 * into [1, max] (docs/decisions.md#limits-are-clamped-not-refused).
 */
export function parseLimit(raw: unknown, fallback: number, max: number, name = 'limit'): number {
  if (raw === undefined || raw === '') return fallback;
  if (typeof raw !== 'string' || !/^-?\d+$/.test(raw.trim())) throw invalidField(`${name} must be an integer`);
  const value = Number.parseInt(raw, 10);
  return Math.min(Math.max(value, 1), max);
}

/** Parse an `offset`: absent → 0; not a non-negative integer → 400. */
export function parseOffset(raw: unknown, name = 'offset'): number {
  if (raw === undefined || raw === '') return 0;
  if (typeof raw !== 'string' || !/^\d+$/.test(raw.trim())) throw invalidField(`${name} must be a non-negative integer`);
  return Math.min(Number.parseInt(raw, 10), Number.MAX_SAFE_INTEGER);
}

/** Query-string schema for a limit parameter (a string, parsed by `parseLimit`). */
export const limitParam = (fallback: number, max: number) => ({
  type: 'string',
  description: `integer, default ${fallback}, clamped to 1..${max}`,
}) as const;
