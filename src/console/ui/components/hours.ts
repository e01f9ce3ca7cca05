import { localDateTime } from './format.js';

const HOUR_MS = 3_600_000;

/** The starts (ISO 8601, UTC) of the last `count` whole hours up to and including the current one, oldest first. */
export function lastHours(count: number, now = Date.now()): string[] {
  const current = Math.floor(now / HOUR_MS) * HOUR_MS;
  return Array.from({ length: count }, (_, i) => new Date(current - (count - 1 - i) * HOUR_MS).toISOString());
}

/** `YYYY-MM-DD` of an instant in the console's zone (components/format.ts). */
export function localDay(iso: string | number): string {
  return localDateTime(new Date(iso)).slice(0, 10);
}

/** `HH:00` of an hour's start in the console's zone. */
export function localHour(iso: string): string {
  return localDateTime(new Date(iso)).slice(11, 16);
}

/** The last `count` days in the console's zone, oldest first (`YYYY-MM-DD`). */
export function lastDays(count: number, now = Date.now()): string[] {
  const days: string[] = [];
  // Steps of 12 h meet every day, whatever its length (DST), each once after deduplication.
  for (let back = 0; days.length < count; back += 12) {
    const day = localDay(now - back * HOUR_MS);
    if (!days.includes(day)) days.unshift(day);
  }
  return days;
}
