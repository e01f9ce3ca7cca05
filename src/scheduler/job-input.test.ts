import { describe, expect, it } from 'vitest';
import { SchedulerError } from './errors.js';
import { validateJobInput, type JobInput } from './job-input.js';

const NOW = Date.parse('2026-03-01T12:00:00.000Z');
const context = {
  now: NOW,
  checkProvider: (name: string) => {
    if (name !== 'offline') throw new Error(`unknown provider '${name}'`);
  },
};
const base: JobInput = { name: 'tick', schedule: 'every 1 minutes', task: 'what time is it?' };
const refusal = (input: Partial<JobInput> | Record<string, unknown>) => {
  try {
    validateJobInput({ ...base, ...input } as JobInput, context);
  } catch (error) {
    return error instanceof SchedulerError ? { code: error.code, message: error.message } : error;
  }
  return null;
};

describe('validateJobInput', () => {
  it('fills the defaults and computes the first fire', () => {
    expect(validateJobInput(base, context)).toEqual({
      name: 'tick', description: null, schedule: 'every 1 minutes', task: 'what time is it?', provider: null,
      active_hours: null, timezone: 'UTC', next_run_at: '2026-03-01T12:01:00.000Z',
    });
  });

  it('keeps the optional fields, trimmed, and treats blank ones as absent', () => {
    expect(validateJobInput({ ...base, name: ' tick ', schedule: ' daily at 09:00 ', provider: 'offline', description: ' d ', active_hours: '08:00-18:00', timezone: 'Asia/Tokyo' }, context))
      .toEqual({
        name: 'tick', description: 'd', schedule: 'daily at 09:00', task: 'what time is it?', provider: 'offline',
        active_hours: '08:00-18:00', timezone: 'Asia/Tokyo', next_run_at: '2026-03-02T00:00:00.000Z',
      });
    expect(validateJobInput({ ...base, provider: '', description: ' ', active_hours: '', timezone: null }, context))
      .toMatchObject({ provider: null, description: null, active_hours: null, timezone: 'UTC' });
  });

  it.each<[Record<string, unknown>, string, string]>([
    [{ name: undefined }, 'invalid', 'field "name" is required'],
    [{ name: '   ' }, 'invalid', 'field "name" must not be blank'],
    [{ name: 7 }, 'invalid', 'field "name" must be a string'],
    [{ name: 'n'.repeat(129) }, 'invalid', 'field "name" is longer than 128 characters'],
    [{ description: 'd'.repeat(513) }, 'invalid', 'field "description" is longer than 512 characters'],
    [{ task: null }, 'invalid', 'field "task" is required'],
    [{ task: ' ' }, 'invalid', 'field "task" must not be blank'],
    [{ task: 't'.repeat(32_001) }, 'too_large', 'field "task" is longer than 32000 characters'],
    [{ timezone: 'Mars/Olympus' }, 'invalid', 'field "timezone" is not an IANA time zone name such as "UTC", "Europe/Paris" or "America/New_York"'],
    [{ timezone: '+02:00' }, 'invalid', 'field "timezone" is not an IANA time zone name such as "UTC", "Europe/Paris" or "America/New_York"'],
    [{ active_hours: '9 to 5' }, 'invalid', 'field "active_hours" must be HH:MM-HH:MM in the job\'s time zone, for example "09:00-17:30", or "22:00-06:00" across midnight'],
    [{ provider: 'nope' }, 'invalid', 'field "provider" is refused: unknown provider \'nope\''],
    // A NUL cannot be stored in PostgreSQL text, and SQLite stops counting a task's characters at one.
    [{ task: 'run\u0000this' }, 'invalid', 'field "task" must not contain NUL characters (\\u0000)'],
    [{ name: '\u0000' }, 'invalid', 'field "name" must not contain NUL characters (\\u0000)'],
    [{ description: 'a\u0000' }, 'invalid', 'field "description" must not contain NUL characters (\\u0000)'],
  ])('refuses a bad field: %#', (input, code, message) => {
    expect(refusal(input)).toEqual({ code, message });
  });

  it('names the schedule field and lists the accepted forms', () => {
    const refused = refusal({ schedule: 'every fortnight' }) as { message: string };
    expect(refused.message).toMatch(/^field "schedule" must be "every N seconds\|minutes\|hours\|days"; accepted forms: "every N seconds\|minutes\|hours\|days", "daily at HH:MM", "weekly on <day> \[at\] HH:MM"/);
    expect(refused.message).toContain('"at YYYY-MM-DD HH:MM"');
    expect(refused.message).toContain('"0 9 * * 1-5"');
  });

  it('refuses a one-shot in the past (in the job\'s zone) and a cron expression that never matches', () => {
    // 12:30 in Tokyo on March 1st was 03:30 UTC: before now.
    expect((refusal({ schedule: 'at 2026-03-01 12:30', timezone: 'Asia/Tokyo' }) as { message: string }).message)
      .toMatch(/^field "schedule" is in the past in Asia\/Tokyo; accepted forms/);
    expect(validateJobInput({ ...base, schedule: 'at 2026-03-01 12:30' }, context).next_run_at).toBe('2026-03-01T12:30:00.000Z');
    expect((refusal({ schedule: '0 0 30 2 *' }) as { message: string }).message).toMatch(/^field "schedule" never fires: no date matches it; accepted forms/);
  });
});
