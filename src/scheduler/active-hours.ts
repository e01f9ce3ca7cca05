import { localMinuteOfDay, parseTimeOfDay } from './clock-time.js';

/** A daily window of wall-clock time, start inclusive, end exclusive, in minutes since midnight. */
export interface ActiveHours {
  start: number;
  end: number;
}

const ACTIVE_HOURS_FORM = 'HH:MM-HH:MM in the job\'s time zone, for example "09:00-17:30", or "22:00-06:00" across midnight';

/** Parses `HH:MM-HH:MM`; throws a message (without the field name) when it is not one. */
export function parseActiveHours(text: string): ActiveHours {
  const parts = text.trim().split(/\s*-\s*/);
  const [startText, endText] = parts;
  const start = parts.length === 2 ? parseTimeOfDay(startText!) : null;
  const end = parts.length === 2 ? parseTimeOfDay(endText!, { allowEndOfDay: true }) : null;
  if (start === null || end === null) throw new Error(`must be ${ACTIVE_HOURS_FORM}`);
  if (start === end % (24 * 60)) throw new Error('starts and ends at the same time; leave active_hours out to fire at any time');
  return { start, end };
}

/**
 * Whether the instant `ms` falls inside the window in `zone`. A window whose end is before its
 * start runs across midnight (`22:00-06:00` is 22:00 to midnight and midnight to 06:00).
 */
export function withinActiveHours(window: ActiveHours, ms: number, zone: string): boolean {
  const minute = localMinuteOfDay(ms, zone);
  return window.start < window.end
    ? minute >= window.start && minute < window.end
    : minute >= window.start || minute < window.end;
}
