import { invalidField } from '../listener/errors.js';
import { parseAuditTimestamp } from '../storage/ports/audit-query.js';

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

/** How far back the hourly counts reach (docs/resources.md#hourly-counts): it bounds their rows. */
export const HOURLY_MAX_DAYS = 31;
const HOUR_MS = 3_600_000;

/** Query-string schema of the start of hourly counts (parsed by `parseHourlySince`). */
export const hourlySinceParam = {
  type: 'string',
  maxLength: 64,
  description: `ISO 8601 date-time with Z or an offset, at most ${HOURLY_MAX_DAYS} days back; default 24 hours ago`,
} as const;

/** The start of hourly counts: absent → 24 hours ago; unreadable or further back than allowed → 400. */
export function parseHourlySince(raw: string | undefined, now = Date.now()): string {
  if (raw === undefined || raw === '') return new Date(now - 24 * HOUR_MS).toISOString();
  const parsed = parseAuditTimestamp(raw);
  if (parsed === null) throw invalidField('query parameter "since" must be an ISO 8601 date-time with Z or an offset, such as 2026-01-05T13:00:00Z');
  if (Date.parse(parsed) < now - HOURLY_MAX_DAYS * 24 * HOUR_MS) throw invalidField(`query parameter "since" must be at most ${HOURLY_MAX_DAYS} days back`);
  return parsed;
}
