import type { AuditSink } from '../storage/ports/audit.js';
import type { Logger } from '../log.js';
import { newId } from '../security/ids/tokens.js';
import { JobAudit } from './audit.js';
import { jobNotFound, quote, SchedulerError } from './errors.js';
import { validateJobInput, type JobInput } from './job-input.js';
import { censorJobText, jobSummary, jobView } from './job-view.js';
import { JobRunner } from './runner.js';
import { jobTimeline } from './timeline.js';
import type { JobOrigin, JobPage, JobPageRequest, JobRecord, JobState, JobStore, JobSummary, NextFire } from '../storage/ports/jobs.js';
import type { JobRunPort } from './types.js';

/** Most jobs kept: each is polled and offered as a control target. */
export const MAX_JOBS = 1_000;

/** Later than any stored `next_run_at`: the due query with it answers the next fires of all active jobs. */
const END_OF_TIME = '9999-12-31T23:59:59.999Z';

export interface SchedulerOptions {
  store: JobStore;
  runs: JobRunPort;
  audit: AuditSink;
  log: Logger;
  /** Throws (with a message for the operator) when a job may not name this provider. */
  checkProvider(name: string): void;
  now?: () => number;
  maxJobs?: number;
}

/** A state change made by an operator control: what the job was and what it is now. */
export interface JobTransition {
  previous: JobState;
  current: JobState | 'removed';
}

/**
 * Scheduled jobs: creating, listing, pausing, resuming and removing them, and the runner that
 * fires them (started and stopped with the service).
 */
export class Scheduler {
  readonly runner: JobRunner;
  private readonly store: JobStore;
  private readonly audit: JobAudit;
  private readonly now: () => number;
  private readonly maxJobs: number;

  constructor(private readonly options: SchedulerOptions) {
    this.store = options.store;
    this.now = options.now ?? Date.now;
    this.maxJobs = options.maxJobs ?? MAX_JOBS;
    this.audit = new JobAudit(options.audit, options.log);
    this.runner = new JobRunner({ store: this.store, runs: options.runs, audit: this.audit, log: options.log, now: this.now, maxDue: this.maxJobs });
  }

  /** Checks and stores a new job; `origin` (client address, HTTP request id) goes into its audit event. */
  async create(input: JobInput, origin: JobOrigin = {}): Promise<JobRecord> {
    const now = this.now();
    const valid = censorJobText(validateJobInput(input, { now, checkProvider: this.options.checkProvider }));
    const job = await this.store.create({ id: newId('job'), ...valid, created_at: new Date(now).toISOString() }, this.maxJobs);
    if (!job) throw new SchedulerError('job_limit', `job limit reached: at most ${this.maxJobs} jobs; remove one before adding another`);
    await this.audit.created(job, origin);
    return job;
  }

  /** One page of jobs, oldest first, each with a preview of its task (censored, bounded). */
  async list(page: JobPageRequest): Promise<JobPage> {
    const { jobs, total } = await this.store.list(page);
    return { jobs: jobs.map(jobSummary), total, has_more: page.offset + jobs.length < total };
  }

  /** Every job (at most the job limit), as listed: for control targets and diagnostics. */
  async all(): Promise<JobSummary[]> {
    return (await this.list({ limit: this.maxJobs, offset: 0 })).jobs;
  }

  /** The `limit` soonest fires of active jobs, soonest first (the store's index on `next_run_at` answers it). */
  async nextFires(limit: number): Promise<NextFire[]> {
    const due = await this.store.due(END_OF_TIME, limit);
    return due.map(jobView).map((job) => ({ job_id: job.id, name: job.name, next_run_at: job.next_run_at! }));
  }

  /** The job in full, its text censored. */
  async get(id: string): Promise<JobRecord | null> {
    const job = await this.store.get(id);
    return job === null ? null : jobView(job);
  }

  /** Stops the job's fires (a run in flight finishes). */
  async pause(id: string): Promise<JobTransition> {
    if (await this.store.pause(id)) return { previous: 'active', current: 'paused' };
    throw await this.refusal(id, 'paused');
  }

  /** Fires again from the next occurrence after now; occurrences while paused are not missed fires. */
  async resume(id: string): Promise<JobTransition> {
    const job = await this.store.get(id);
    if (!job) throw jobNotFound(id);
    const now = this.now();
    const next = jobTimeline(job).next(now);
    if (await this.store.resume(id, next === null ? null : new Date(next).toISOString())) return { previous: 'paused', current: 'active' };
    throw await this.refusal(id, 'active');
  }

  /** Deletes the job; a run in flight finishes, and the job's turns stay in memory. */
  async remove(id: string): Promise<JobTransition> {
    const job = await this.store.get(id);
    if (!job || !(await this.store.remove(id))) throw jobNotFound(id);
    return { previous: job.state, current: 'removed' };
  }

  /** Why a state change did not apply: the job is gone, or it is already in that state. */
  private async refusal(id: string, already: JobState): Promise<SchedulerError> {
    const job = await this.store.get(id);
    if (!job) return jobNotFound(id);
    return new SchedulerError('state_conflict', `job ${quote(id)} is already ${already}`);
  }
}
