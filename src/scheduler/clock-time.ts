/** Wall-clock times of day and time zones, as schedules and active hours use them. */

export const MINUTES_PER_DAY = 24 * 60;

const TIME_OF_DAY = /^(\d{1,2}):(\d{2})$/;

/**
 * `HH:MM` (or `H:MM`) as minutes since midnight, 00:00 to 23:59; `24:00` too when `allowEndOfDay`
 * (the end of an active-hours window). Null when it is not such a time.
 */
export function parseTimeOfDay(text: string, options: { allowEndOfDay?: boolean } = {}): number | null {
  const match = TIME_OF_DAY.exec(text);
  if (!match) return null;
  const hours = Number(match[1]);
  const minutes = Number(match[2]);
  if (options.allowEndOfDay && hours === 24 && minutes === 0) return MINUTES_PER_DAY;
  if (hours > 23 || minutes > 59) return null;
  return hours * 60 + minutes;
}

// An IANA name is letters, digits, `_`, `+`, `-` in `/`-separated parts; this keeps out the UTC
// offsets ("+02:00") that some Intl versions accept but croner does not (docs/decisions.md#time-zones-are-iana-names).
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/;
const MAX_ZONE_CHARS = 64;

/**
 * Formatters of the zones stored jobs use (building one costs more than using it). A pure cache,
 * shared by every app in the process; bounded, since a zone may be spelt in any letter case.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();
const MAX_FORMATTERS = 1_000;

const newFormatter = (zone: string) => new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', hour: '2-digit', minute: '2-digit' });

function formatter(zone: string): Intl.DateTimeFormat {
  let format = formatters.get(zone);
  if (!format) {
    format = newFormatter(zone);
    if (formatters.size >= MAX_FORMATTERS) formatters.clear();
    formatters.set(zone, format);
  }
  return format;
}

/** Whether `zone` is an IANA time zone name this runtime knows. */
export function isTimeZone(zone: string): boolean {
  if (zone.length > MAX_ZONE_CHARS || !ZONE_NAME.test(zone)) return false;
  try {
    newFormatter(zone);
    return true;
  } catch {
    return false;
  }
}

/** Minutes since local midnight of the instant `ms` in `zone` (a valid zone). */
export function localMinuteOfDay(ms: number, zone: string): number {
  let hours = 0;
  let minutes = 0;
  for (const part of formatter(zone).formatToParts(ms)) {
    if (part.type === 'hour') hours = Number(part.value);
    else if (part.type === 'minute') minutes = Number(part.value);
  }
  return hours * 60 + minutes;
}
