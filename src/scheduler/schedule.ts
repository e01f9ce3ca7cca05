import { Cron } from 'croner';
import { parseTimeOfDay } from './clock-time.js';

/**
 * A parsed `schedule` (docs/resources.md#scheduled-jobs). Every calendar form becomes a croner pattern, so
 * time zones and DST follow croner's documented rules; `every` is a fixed interval of elapsed time.
 */
export type ScheduleSpec =
  | { kind: 'every'; intervalMs: number }
  /** `once`: a 7-field pattern with a year (`at …`), which matches one minute only. */
  | { kind: 'cron'; pattern: string; once: boolean };

export const SCHEDULE_FORMS =
  'accepted forms: "every N seconds|minutes|hours|days", "daily at HH:MM", "weekly on <day> [at] HH:MM" ' +
  '(monday or mon … sunday or sun), "at YYYY-MM-DD HH:MM" (once, in the future), ' +
  'or a 5-field cron expression "minute hour day-of-month month day-of-week" such as "0 9 * * 1-5" (names allowed: MON, JAN)';

const UNIT_MS: Record<string, number> = { second: 1_000, minute: 60_000, hour: 3_600_000, day: 86_400_000 };
/** Longest interval: beyond a year an `at` or a cron expression says it better. */
export const MAX_INTERVAL_MS = 366 * UNIT_MS.day!;

const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/** Why a schedule was refused (the caller adds the field name and `SCHEDULE_FORMS`). */
export class ScheduleSyntaxError extends Error {}

const fail = (problem: string): never => {
  throw new ScheduleSyntaxError(problem);
};

/** Parses one of the accepted forms; throws `ScheduleSyntaxError` saying what is wrong. */
export function parseSchedule(text: string): ScheduleSpec {
  const words = text.trim().split(/\s+/).filter((word) => word !== '');
  if (words.length === 0) return fail('is empty');
  const keyword = words[0]!.toLowerCase();
  if (keyword === 'every') return parseEvery(words);
  if (keyword === 'daily') return parseDaily(words);
  if (keyword === 'weekly') return parseWeekly(words);
  if (keyword === 'at') return parseAt(words);
  if (words.length === 5) return parseCron(words.join(' '));
  if (words.length === 6 || words.length === 7) {
    return fail('has 6 or 7 fields; cron expressions here have 5 (minute hour day-of-month month day-of-week), without seconds or years');
  }
  return fail(`is not a schedule: ${JSON.stringify(text.trim().slice(0, 80))}`);
}

function parseEvery(words: string[]): ScheduleSpec {
  if (words.length !== 3) return fail('must be "every N seconds|minutes|hours|days"');
  const [, count, unitWord] = words as [string, string, string];
  if (!/^\d{1,9}$/.test(count) || Number(count) < 1) return fail(`has ${JSON.stringify(count.slice(0, 20))} where N, a whole number of 1 or more, belongs`);
  const unit = UNIT_MS[unitWord.toLowerCase().replace(/s$/, '')];
  if (unit === undefined) return fail(`has the unit ${JSON.stringify(unitWord.slice(0, 20))}; use seconds, minutes, hours or days`);
  const intervalMs = Number(count) * unit;
  if (intervalMs > MAX_INTERVAL_MS) return fail('is an interval longer than 366 days');
  return { kind: 'every', intervalMs };
}

function parseDaily(words: string[]): ScheduleSpec {
  if (words.length !== 3 || words[1]!.toLowerCase() !== 'at') return fail('must be "daily at HH:MM"');
  const minutes = timeOfDay(words[2]!);
  return { kind: 'cron', pattern: `${minutes % 60} ${Math.floor(minutes / 60)} * * *`, once: false };
}

function parseWeekly(words: string[]): ScheduleSpec {
  const withAt = words.length === 5 && words[3]!.toLowerCase() === 'at';
  if (!(words.length === 4 || withAt) || words[1]!.toLowerCase() !== 'on') return fail('must be "weekly on <day> [at] HH:MM"');
  const dayWord = words[2]!.toLowerCase();
  const day = DAYS.findIndex((name) => name === dayWord || name.slice(0, 3) === dayWord);
  if (day === -1) return fail(`has the day ${JSON.stringify(words[2]!.slice(0, 20))}; use monday … sunday or mon … sun`);
  const minutes = timeOfDay(words[words.length - 1]!);
  return { kind: 'cron', pattern: `${minutes % 60} ${Math.floor(minutes / 60)} * * ${day}`, once: false };
}

function parseAt(words: string[]): ScheduleSpec {
  if (words.length !== 3) return fail('must be "at YYYY-MM-DD HH:MM"');
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(words[1]!);
  const [year, month, day] = date ? [Number(date[1]), Number(date[2]), Number(date[3])] : [0, 0, 0];
  // A date is real when the calendar gives the same day back (no 2026-02-30).
  const probe = new Date(Date.UTC(year, month - 1, day));
  if (!date || probe.getUTCFullYear() !== year || probe.getUTCMonth() !== month - 1 || probe.getUTCDate() !== day) {
    return fail(`has ${JSON.stringify(words[1]!.slice(0, 20))} where a date YYYY-MM-DD belongs`);
  }
  const minutes = timeOfDay(words[2]!);
  return { kind: 'cron', pattern: `0 ${minutes % 60} ${Math.floor(minutes / 60)} ${day} ${month} * ${year}`, once: true };
}

function parseCron(pattern: string): ScheduleSpec {
  try {
    new Cron(pattern, { mode: '5-part', timezone: 'UTC' });
  } catch (error) {
    return fail(`is not a valid cron expression: ${(error as Error).message.replace(/^CronPattern:\s*/, '')}`);
  }
  return { kind: 'cron', pattern, once: false };
}

function timeOfDay(text: string): number {
  return parseTimeOfDay(text) ?? fail(`has ${JSON.stringify(text.slice(0, 20))} where a time HH:MM (00:00 to 23:59) belongs`);
}
