/** How values from the API are shown; every one ends up as text, never as markup. */

/**
 * The one time zone the whole console shows and reads times in: the browser's own. Every shown
 * time names it, so a reader never has to guess whether a table is in UTC or local time.
 */
export const CONSOLE_TIME_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

const LOCAL_PARTS = new Intl.DateTimeFormat('en-CA', {
  timeZone: CONSOLE_TIME_ZONE,
  year: 'numeric', month: '2-digit', day: '2-digit',
  hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23',
});

/** `YYYY-MM-DDTHH:MM:SS` of `date` in the console's zone: the wall clock, as a datetime-local input holds it. */
export function localDateTime(date: Date): string {
  const part = new Map(LOCAL_PARTS.formatToParts(date).map((p) => [p.type, p.value]));
  return `${part.get('year')}-${part.get('month')}-${part.get('day')}T${part.get('hour')}:${part.get('minute')}:${part.get('second')}`;
}

/** A time in the console's zone with the zone named: `2026-11-28 11:33:12 Europe/Paris`. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${localDateTime(date).replace('T', ' ')} ${CONSOLE_TIME_ZONE}`;
}

/** The same instant in UTC, for a tooltip next to the local time. */
export function formatUtc(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toISOString().replace('T', ' ').replace(/\.\d{3}Z$/, ' UTC');
}

/**
 * One money format everywhere: from $1 on, cents; below, two significant digits with trailing
 * zeros dropped past the cents ($0.024, $0.012, $0.006, $0.50), so small amounts side by side
 * compare at a glance.
 */
export function formatUsd(value: number): string {
  const sign = value < 0 ? '-' : '';
  const size = Math.abs(value);
  if (size >= 1 || size === 0) return `${sign}$${size.toFixed(2)}`;
  const digits = Number(size.toPrecision(2)).toFixed(Math.max(2, 1 - Math.floor(Math.log10(size))));
  return `${sign}$${digits.replace(/(\.\d\d\d*?)0+$/, '$1')}`;
}

export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} h ${minutes % 60} min` : `${Math.floor(hours / 24)} days`;
}

export function yesNo(value: boolean): string {
  return value ? 'yes' : 'no';
}
