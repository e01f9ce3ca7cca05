/**
 * The meaning of an audit query's `q` and time bounds, shared by every backend, the endpoint and
 * `agentd audit export`.
 */

/** `q` shorter than this matches nearly every event and no substring index can serve it. */
export const MIN_QUERY_CHARS = 3;
export const MAX_QUERY_CHARS = 200;

/** The form `q` is compared in: lower case (Unicode), on both sides. */
export function auditText(text: string): string {
  return text.toLowerCase();
}

/**
 * Whether an event matches `q`: `needle` (already `auditText`) is a substring of the event type or
 * of the detail as stored (its JSON text), compared lower-cased. The two are never joined, so a
 * match cannot straddle them.
 */
export function matchesQuery(eventType: string, detailJson: string, needle: string): boolean {
  return auditText(eventType).includes(needle) || auditText(detailJson).includes(needle);
}

/** Characters of `q` as the trigram index counts them (code points, not UTF-16 units). */
export function queryLength(q: string): number {
  return [...auditText(q)].length;
}

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?:([Zz])|([+\- ])(\d{2})(?::?(\d{2}))?)$/;
const MIN_MS = new Date(0).setUTCFullYear(0, 0, 1);
const MAX_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * An ISO 8601 date-time with `Z` or a UTC offset, as the canonical UTC form the store compares
 * (`2026-01-05T13:00:00.000Z`); null when it is not one (a date alone, no offset, month 13,
 * 30 February, a year outside 0000–9999 after the offset is applied).
 *
 * - A space before the offset is read as `+`: an unencoded `+` in a query string arrives as one.
 * - Fractions beyond milliseconds are rounded up: stored times are whole milliseconds, so
 *   `t >= since` and `t < until` keep their exact meaning.
 */
export function parseAuditTimestamp(raw: string): string | null {
  const m = TIMESTAMP.exec(raw.trim());
  if (!m) return null;
  const [year, month, day, hour, minute] = [m[1], m[2], m[3], m[4], m[5]].map(Number) as [number, number, number, number, number];
  const second = m[6] === undefined ? 0 : Number(m[6]);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59) return null;
  const fraction = m[7] ?? '';
  const millis = Number(fraction.slice(0, 3).padEnd(3, '0')) + (/[1-9]/.test(fraction.slice(3)) ? 1 : 0);
  let offsetMinutes = 0;
  if (m[8] === undefined) {
    const sign = m[9] === '-' ? -1 : 1;
    const offsetHours = Number(m[10]);
    const offsetMins = m[11] === undefined ? 0 : Number(m[11]);
    if (offsetHours > 23 || offsetMins > 59) return null;
    offsetMinutes = sign * (offsetHours * 60 + offsetMins);
  }
  const utc = new Date(0);
  utc.setUTCFullYear(year, month - 1, day);
  utc.setUTCHours(hour, minute, second, 0);
  const ms = utc.getTime() + millis - offsetMinutes * 60_000;
  if (ms < MIN_MS || ms > MAX_MS) return null;
  return new Date(ms).toISOString();
}

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !isLeap(year) ? 1 : 0);
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}
