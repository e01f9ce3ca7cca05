/** JSON schemas of the scheduler resource. */
import { JOB_FIELD_LIMITS, SCHEDULE_FORMS, TASK_PREVIEW_CHARS } from '../../../scheduler/index.js';
import { nullableString } from '../schemas.js';

const nullableTime = { type: ['string', 'null'], description: 'ISO 8601 UTC with milliseconds' } as const;
const optionalText = (maxLength: number, description: string) => ({ type: ['string', 'null'], maxLength, description }) as const;

export const jobSchema = {
  type: 'object',
  required: [
    'id', 'name', 'description', 'schedule', 'task', 'provider', 'active_hours', 'timezone', 'state', 'created_at', 'next_run_at',
    'last_run_at', 'last_status', 'last_run_id', 'last_error', 'run_count', 'skipped', 'last_skipped_at', 'last_skip_reason', 'missed',
    'last_missed_at',
  ],
  properties: {
    id: { type: 'string' },
    name: { type: 'string', description: 'secret-censored, like a chat message' },
    description: { ...nullableString, description: 'secret-censored' },
    schedule: { type: 'string' },
    task: { type: 'string', description: 'what each run is asked, secret-censored when the job was created' },
    provider: { ...nullableString, description: 'null: the default provider at the time of each fire' },
    active_hours: nullableString,
    timezone: { type: 'string' },
    state: { type: 'string', enum: ['active', 'paused'] },
    created_at: { type: 'string' },
    next_run_at: { ...nullableTime, description: 'null when paused, or when a one-shot job has fired' },
    last_run_at: { ...nullableTime, description: 'when the most recent fire that started (or meant to start) a run was claimed' },
    last_status: {
      type: ['string', 'null'],
      enum: ['starting', 'running', 'complete', 'error', 'cancelled', 'interrupted', null],
      description: 'interrupted: the service stopped after claiming the fire and before its run started',
    },
    last_run_id: { ...nullableString, description: 'the run of that fire (GET /api/v1/runs/{id})' },
    last_error: nullableString,
    run_count: { type: 'integer', description: 'fires that started a run' },
    skipped: { type: 'integer', description: 'fires skipped (run in flight, outside active_hours, budget spent)' },
    last_skipped_at: nullableTime,
    last_skip_reason: { type: ['string', 'null'], enum: ['in_flight', 'active_hours', 'budget', null] },
    missed: { type: 'integer', description: 'occurrences that passed while the service was down or stalled; never replayed' },
    last_missed_at: nullableTime,
  },
} as const;

/** A job as GET /scheduler/jobs lists it: a preview of the task in place of the task. */
const { task: _task, ...listedProperties } = jobSchema.properties;
export const jobSummarySchema = {
  type: 'object',
  required: [...jobSchema.required.filter((field) => field !== 'task'), 'task_preview', 'task_chars'],
  properties: {
    ...listedProperties,
    task_preview: {
      type: 'string',
      description: `the task's first ${TASK_PREVIEW_CHARS} characters (secret-censored); a longer task is cut there and followed by ` +
        '"… (<n> characters in all)"; the whole task is on GET /api/v1/scheduler/jobs/{id}',
    },
    task_chars: { type: 'integer', description: 'the whole task\'s length in characters (Unicode code points)' },
  },
} as const;

export const jobBodySchema = {
  type: 'object',
  required: ['name', 'schedule', 'task'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', maxLength: JOB_FIELD_LIMITS.name },
    schedule: { type: 'string', maxLength: JOB_FIELD_LIMITS.schedule, description: SCHEDULE_FORMS },
    task: { type: 'string', maxLength: JOB_FIELD_LIMITS.task, description: `what each run is asked; at most ${JOB_FIELD_LIMITS.task} characters (413 beyond)` },
    provider: optionalText(JOB_FIELD_LIMITS.provider, 'provider of the job\'s runs; omitted: the default at each fire'),
    description: optionalText(JOB_FIELD_LIMITS.description, 'free text for the operator'),
    active_hours: optionalText(JOB_FIELD_LIMITS.active_hours, 'HH:MM-HH:MM in the job\'s time zone; fires outside it are skipped; 22:00-06:00 spans midnight'),
    timezone: optionalText(JOB_FIELD_LIMITS.timezone, 'IANA time zone of the schedule and active_hours; default UTC'),
  },
} as const;
