/**
 * Cutting a time range into what counts its events fastest (migration 010): whole UTC days from
 * `audit_counts_days`, whole hours at the ends from `audit_counts_hours`, and the minutes left over
 * from the events themselves. Bounds are strings compared with stored timestamps (all
 * `toISOString()`): a day key `2026-01-05` or an hour key `2026-01-05T13` sorts before every
 * timestamp in it and after every one before it, so it is its own start bound.
 */

/** `from` inclusive, `to` exclusive; null = unbounded. */
export interface Span {
  from: string | null;
  to: string | null;
}

export interface CountingPlan {
  /** Minutes at the ends, counted from the events. */
  raw: { from: string; to: string }[];
  /** Whole hours at the ends, as hour keys. */
  hours: Span[];
  /** Whole days, as day keys. */
  days: Span | null;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

const hourKey = (ms: number) => new Date(ms).toISOString().slice(0, 13);
const dayKey = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const ceilTo = (ms: number, unit: number) => Math.ceil(ms / unit) * unit;
const floorTo = (ms: number, unit: number) => Math.floor(ms / unit) * unit;

/** The plan for `[since, until)` (canonical timestamps; absent = unbounded). */
export function countingPlan(since?: string, until?: string): CountingPlan {
  const s = since === undefined ? -Infinity : Date.parse(since);
  const u = until === undefined ? Infinity : Date.parse(until);
  const sHour = Number.isFinite(s) ? ceilTo(s, HOUR_MS) : s;
  const uHour = Number.isFinite(u) ? floorTo(u, HOUR_MS) : u;
  // Both bounds are finite here: an open end always leaves whole hours.
  if (sHour >= uHour) return { raw: s < u ? [{ from: since!, to: until! }] : [], hours: [], days: null };
  const raw: CountingPlan['raw'] = [];
  if (s < sHour) raw.push({ from: since!, to: hourKey(sHour) });
  if (uHour < u) raw.push({ from: hourKey(uHour), to: until! });
  const sDay = Number.isFinite(sHour) ? ceilTo(sHour, DAY_MS) : sHour;
  const uDay = Number.isFinite(uHour) ? floorTo(uHour, DAY_MS) : uHour;
  const hourSpan = (from: number, to: number): Span => ({
    from: Number.isFinite(from) ? hourKey(from) : null, to: Number.isFinite(to) ? hourKey(to) : null,
  });
  if (sDay >= uDay) return { raw, hours: [hourSpan(sHour, uHour)], days: null };
  const hours: Span[] = [];
  if (sHour < sDay) hours.push(hourSpan(sHour, sDay));
  if (uDay < uHour) hours.push(hourSpan(uDay, uHour));
  const days = { from: Number.isFinite(sDay) ? dayKey(sDay) : null, to: Number.isFinite(uDay) ? dayKey(uDay) : null };
  return { raw, hours, days };
}

/** The span one day key or hour key stands for. */
export function keySpan(key: string): Span {
  if (key.length === 10) return { from: key, to: dayKey(Date.parse(`${key}T00:00:00.000Z`) + DAY_MS) };
  return { from: key, to: hourKey(Date.parse(`${key}:00:00.000Z`) + HOUR_MS) };
}

/** A span with how many of its events match the query and how many it holds in all. */
export interface Bucket extends Span {
  from: string;
  to: string;
  matched: number;
  rows: number;
  /** The day key when the bucket is a whole day (it can be split into hours). */
  day?: string;
}

/**
 * Where the page `[offset, offset + limit)` of the matches lies in `buckets` (newest first): the
 * index of the bucket holding its first row, the offset of that row within the bucket, and the index
 * of the bucket holding its last row. null when `offset` is past the last match.
 */
export function locate(buckets: readonly Bucket[], offset: number, limit: number): { first: number; within: number; last: number } | null {
  let before = 0;
  let first = 0;
  while (first < buckets.length && before + buckets[first]!.matched <= offset) before += buckets[first++]!.matched;
  if (first === buckets.length) return null;
  const within = offset - before;
  let last = first;
  let through = before + buckets[first]!.matched;
  while (last < buckets.length - 1 && through < offset + limit) through += buckets[++last]!.matched;
  return { first, within, last };
}
