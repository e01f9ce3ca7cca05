import { parseActiveHours } from './active-hours.js';
import { isTimeZone } from './clock-time.js';
import { invalidField, SchedulerError } from './errors.js';
import { parseSchedule, SCHEDULE_FORMS, ScheduleSyntaxError } from './schedule.js';
import { compileTimeline } from './timeline.js';
import type { NewJob } from '../storage/ports/jobs.js';

/** Input caps (the issue's): longer values are refused, `task` with 413 like a run's `message`. */
export const JOB_FIELD_LIMITS = { name: 128, description: 512, task: 32_000, schedule: 200, provider: 64, active_hours: 32, timezone: 64 } as const;

/** What an operator gives to create a job (POST /api/v1/scheduler/jobs). */
export interface JobInput {
  name: string;
  schedule: string;
  task: string;
  provider?: string | null;
  description?: string | null;
  active_hours?: string | null;
  timezone?: string | null;
}

/** A job's fields once checked, with its first fire (a new job always has one). */
export type ValidJob = Omit<NewJob, 'id' | 'created_at' | 'next_run_at'> & { next_run_at: string };

export interface JobInputContext {
  now: number;
  /** Throws (with a message for the operator) when jobs cannot use this provider. */
  checkProvider(name: string): void;
}

/**
 * Checks every field of a new job and computes its first fire; throws `SchedulerError` naming the
 * first bad field. Optional fields given as null or blank count as absent (a console form sends "").
 */
export function validateJobInput(input: JobInput, context: JobInputContext): ValidJob {
  const name = required(input, 'name').trim();
  if (name === '') throw invalidField('name', 'must not be blank');
  const schedule = required(input, 'schedule').trim();
  const task = required(input, 'task');
  if (task.trim() === '') throw invalidField('task', 'must not be blank');
  const description = optional(input, 'description');
  const provider = optional(input, 'provider');
  const activeHours = optional(input, 'active_hours');
  const timezone = optional(input, 'timezone') ?? 'UTC';

  if (!isTimeZone(timezone)) throw invalidField('timezone', 'is not an IANA time zone name such as "UTC", "Europe/Paris" or "America/New_York"');
  if (activeHours !== null) {
    try {
      parseActiveHours(activeHours);
    } catch (error) {
      throw invalidField('active_hours', (error as Error).message);
    }
  }
  if (provider !== null) {
    try {
      context.checkProvider(provider);
    } catch (error) {
      throw invalidField('provider', `is refused: ${(error as Error).message}`);
    }
  }
  let spec;
  try {
    spec = parseSchedule(schedule);
  } catch (error) {
    if (error instanceof ScheduleSyntaxError) throw invalidField('schedule', `${error.message}; ${SCHEDULE_FORMS}`);
    throw error;
  }
  const next = compileTimeline(spec, timezone, context.now).next(context.now);
  if (next === null) {
    const why = spec.kind === 'cron' && spec.once ? `is in the past in ${timezone}` : 'never fires: no date matches it';
    throw invalidField('schedule', `${why}; ${SCHEDULE_FORMS}`);
  }
  return { name, description, schedule, task, provider, active_hours: activeHours, timezone, next_run_at: new Date(next).toISOString() };
}

type Field = keyof typeof JOB_FIELD_LIMITS;

function required(input: JobInput, field: Field & keyof JobInput): string {
  const value: unknown = input[field];
  if (value === undefined || value === null) throw invalidField(field, 'is required');
  return capped(field, value);
}

function optional(input: JobInput, field: Field & keyof JobInput): string | null {
  const value: unknown = input[field];
  if (value === undefined || value === null) return null;
  const text = capped(field, value).trim();
  return text === '' ? null : text;
}

function capped(field: Field, value: unknown): string {
  if (typeof value !== 'string') throw invalidField(field, 'must be a string');
  // PostgreSQL cannot store a NUL in text, and SQLite stops counting a text's characters at one.
  if (value.includes('\0')) throw invalidField(field, 'must not contain NUL characters (\\u0000)');
  const limit = JOB_FIELD_LIMITS[field];
  if (value.length > limit) {
    const message = `field "${field}" is longer than ${limit} characters`;
    throw field === 'task' ? new SchedulerError('too_large', message) : new SchedulerError('invalid', message);
  }
  return value;
}
