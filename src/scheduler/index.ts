/** Scheduled jobs: schedules, active hours, time zones, and the runner that fires them as runs. */
export { Scheduler, MAX_JOBS, type SchedulerOptions, type JobTransition } from './scheduler.js';
export { TASK_PREVIEW_CHARS, jobSummary } from './job-view.js';
export { STALE_CLAIM_MS } from './runner.js';
export { JOB_FIELD_LIMITS, type JobInput } from './job-input.js';
export { SCHEDULE_FORMS } from './schedule.js';
export { SchedulerError, jobNotFound, quote, type SchedulerErrorCode } from './errors.js';
export * from '../storage/ports/jobs.js';
export * from './types.js';
