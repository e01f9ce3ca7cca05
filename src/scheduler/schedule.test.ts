import { describe, expect, it } from 'vitest';
import { parseSchedule, ScheduleSyntaxError, type ScheduleSpec } from './schedule.js';

const every = (intervalMs: number): ScheduleSpec => ({ kind: 'every', intervalMs });
const cron = (pattern: string, once = false): ScheduleSpec => ({ kind: 'cron', pattern, once });

describe('parseSchedule accepts', () => {
  it.each<[string, ScheduleSpec]>([
    ['every 30 seconds', every(30_000)],
    ['every 1 minutes', every(60_000)],
    ['every 1 minute', every(60_000)],
    ['every 2 hours', every(7_200_000)],
    ['every 7 days', every(604_800_000)],
    ['every 366 days', every(366 * 86_400_000)],
    ['  Every   5   MINUTES ', every(300_000)],
    ['daily at 09:30', cron('30 9 * * *')],
    ['daily at 0:05', cron('5 0 * * *')],
    ['DAILY AT 23:59', cron('59 23 * * *')],
    ['weekly on monday at 09:00', cron('0 9 * * 1')],
    ['weekly on mon 09:00', cron('0 9 * * 1')],
    ['weekly on Sunday 18:45', cron('45 18 * * 0')],
    ['weekly on sat at 07:15', cron('15 7 * * 6')],
    ['weekly on THU at 12:00', cron('0 12 * * 4')],
    ['at 2030-02-28 08:00', cron('0 0 8 28 2 * 2030', true)],
    ['at 2028-02-29 23:59', cron('0 59 23 29 2 * 2028', true)],
    ['0 9 * * 1-5', cron('0 9 * * 1-5')],
    ['*/15 * * * *', cron('*/15 * * * *')],
    ['0 9 * * MON-FRI', cron('0 9 * * MON-FRI')],
    ['30 6 1 JAN,JUL *', cron('30 6 1 JAN,JUL *')],
    ['0   12  *  *  sun', cron('0 12 * * sun')],
  ])('%j', (text, spec) => {
    expect(parseSchedule(text)).toEqual(spec);
  });
});

describe('parseSchedule refuses, saying why', () => {
  it.each<[string, string]>([
    ['', 'is empty'],
    ['   ', 'is empty'],
    ['every', 'must be "every N seconds|minutes|hours|days"'],
    ['every minute', 'must be "every N seconds|minutes|hours|days"'],
    ['every 5', 'must be "every N seconds|minutes|hours|days"'],
    ['every 0 minutes', 'has "0" where N, a whole number of 1 or more, belongs'],
    ['every -5 minutes', 'has "-5" where N, a whole number of 1 or more, belongs'],
    ['every 1.5 hours', 'has "1.5" where N, a whole number of 1 or more, belongs'],
    ['every five minutes', 'has "five" where N, a whole number of 1 or more, belongs'],
    ['every 5 fortnights', 'has the unit "fortnights"; use seconds, minutes, hours or days'],
    ['every 5 ms', 'has the unit "ms"; use seconds, minutes, hours or days'],
    ['every 367 days', 'is an interval longer than 366 days'],
    ['every 9000 hours', 'is an interval longer than 366 days'],
    ['daily', 'must be "daily at HH:MM"'],
    ['daily 09:00', 'must be "daily at HH:MM"'],
    ['daily at 25:00', 'has "25:00" where a time HH:MM (00:00 to 23:59) belongs'],
    ['daily at 9am', 'has "9am" where a time HH:MM (00:00 to 23:59) belongs'],
    ['daily at 09:60', 'has "09:60" where a time HH:MM (00:00 to 23:59) belongs'],
    ['weekly on funday at 09:00', 'has the day "funday"; use monday … sunday or mon … sun'],
    ['weekly monday 09:00', 'must be "weekly on <day> [at] HH:MM"'],
    ['weekly on monday', 'must be "weekly on <day> [at] HH:MM"'],
    ['weekly on monday at 24:00', 'has "24:00" where a time HH:MM (00:00 to 23:59) belongs'],
    ['at tomorrow 09:00', 'has "tomorrow" where a date YYYY-MM-DD belongs'],
    ['at 2030-02-30 09:00', 'has "2030-02-30" where a date YYYY-MM-DD belongs'],
    ['at 2030-13-01 09:00', 'has "2030-13-01" where a date YYYY-MM-DD belongs'],
    ['at 2030-1-5 09:00', 'has "2030-1-5" where a date YYYY-MM-DD belongs'],
    ['at 2030-01-05', 'must be "at YYYY-MM-DD HH:MM"'],
    ['at 2030-01-05 7pm', 'has "7pm" where a time HH:MM (00:00 to 23:59) belongs'],
    ['61 * * * *', 'is not a valid cron expression: Invalid value for minute: 61'],
    ['0 24 * * *', 'is not a valid cron expression: Invalid value for hour: 24'],
    ['0 9 * * 8', 'is not a valid cron expression: Invalid value for dayOfWeek: 8'],
    ['*/0 * * * *', 'is not a valid cron expression: Syntax error, illegal stepping: 0'],
    ['a b c d e', 'is not a valid cron expression: configuration entry 1 (a) contains illegal characters.'],
    ['0 0 9 * * *', 'has 6 or 7 fields; cron expressions here have 5 (minute hour day-of-month month day-of-week), without seconds or years'],
    ['0 0 9 * * * 2030', 'has 6 or 7 fields; cron expressions here have 5 (minute hour day-of-month month day-of-week), without seconds or years'],
    ['* * * *', 'is not a schedule: "* * * *"'],
    ['@daily', 'is not a schedule: "@daily"'],
    ['hourly', 'is not a schedule: "hourly"'],
    ['tomorrow at noon', 'is not a schedule: "tomorrow at noon"'],
  ])('%j: %s', (text, message) => {
    expect(() => parseSchedule(text)).toThrow(new ScheduleSyntaxError(message));
  });
});
