/** Scheduled jobs and their fires, as every backend stores them. */

export type JobState = 'active' | 'paused';

/**
 * What became of a job's most recent fire that meant to start a run: `starting` (claimed) →
 * `running` (its run exists) → the run's end state, or `interrupted` when its run never started
 * (the service stopped in between) and `error` when the runtime refused to start it.
 */
export type FireStatus = 'starting' | 'running' | 'complete' | 'error' | 'cancelled' | 'interrupted';

export const UNSETTLED_STATUSES: ReadonlySet<FireStatus> = new Set(['starting', 'running']);

/** Why a fire was skipped: the previous run is still in flight, outside `active_hours`, or the session's budget is spent. */
export type SkipReason = 'in_flight' | 'active_hours' | 'budget';

/** Who created a job: the client address, the operator (`api_key` or `web_session:<id>`) and the HTTP request id, for its audit event. */
export interface JobOrigin {
  source?: string | null;
  actor?: string | null;
  requestId?: string;
}

/** An active job's next occurrence, as the overview lists it (docs/resources.md#overview). */
export interface NextFire {
  job_id: string;
  name: string;
  next_run_at: string;
}

/** A scheduled job as the API returns it (docs/resources.md#scheduled-jobs), with what a fire left behind. */
export interface JobRecord {
  id: string;
  name: string;
  description: string | null;
  /** As the operator wrote it. */
  schedule: string;
  task: string;
  /** The provider the job's runs use; null means the default at the time of each fire. */
  provider: string | null;
  /** `HH:MM-HH:MM` in the job's time zone, or null for any time. */
  active_hours: string | null;
  /** IANA name; UTC unless given. */
  timezone: string;
  state: JobState;
  created_at: string;
  /** The next occurrence, or null when there is none (paused, or a one-shot that has fired). */
  next_run_at: string | null;
  /** When the most recent fire that meant to start a run was claimed, or null before the first. */
  last_run_at: string | null;
  last_status: FireStatus | null;
  /** That fire's run (it may not exist: `interrupted`, or refused with `error`). */
  last_run_id: string | null;
  /** Why that fire failed (`error`, `interrupted`), or null. */
  last_error: string | null;
  /** Fires that started a run. */
  run_count: number;
  /** Fires that were skipped (see `last_skip_reason`), and when the most recent was. */
  skipped: number;
  last_skipped_at: string | null;
  last_skip_reason: SkipReason | null;
  /** Occurrences that passed without a fire (the service was down or stalled); never replayed. */
  missed: number;
  last_missed_at: string | null;
}

/**
 * How much of a task a store hands to a list: enough to censor and cut a preview from, never the
 * whole task (a list of 1,000 jobs with 32,000-character tasks would be 32 MB).
 */
export const TASK_HEAD_CHARS = 400;

/** A job as a store lists it: the task only as its first `TASK_HEAD_CHARS` characters, and its length. */
export type JobListing = Omit<JobRecord, 'task'> & {
  task_head: string;
  /** The whole task's length in characters (Unicode code points). */
  task_chars: number;
};

/** A job as GET /scheduler/jobs lists it: a bounded, censored preview in place of the task. */
export type JobSummary = Omit<JobRecord, 'task'> & { task_preview: string; task_chars: number };

/** A page of jobs as GET /scheduler/jobs answers it. */
export interface JobPage {
  jobs: JobSummary[];
  /** Every job. */
  total: number;
  has_more: boolean;
}

export interface JobPageRequest {
  limit: number;
  offset: number;
}

/** What creating a job stores. */
export type NewJob = Pick<
  JobRecord,
  'id' | 'name' | 'description' | 'schedule' | 'task' | 'provider' | 'active_hours' | 'timezone' | 'created_at' | 'next_run_at'
>;

/**
 * The fire a claim records, if the occurrence fires at all. A skip is counted apart from the last
 * run's state, which it leaves alone (a skip because of a run in flight must not hide that run).
 */
export type ClaimedFire =
  | { at: string; status: 'starting'; run_id: string }
  | { at: string; status: 'skipped'; reason: SkipReason };

/**
 * One runner taking the job's due occurrence(s). It commits only while the job's `next_run_at` is
 * still `expected`, and moves it on in the same write, so of several runners reading the same due
 * job exactly one claims each occurrence.
 */
export interface FireClaim {
  expected: string;
  next_run_at: string | null;
  /** Occurrences that passed unfired, added to the job's `missed`. */
  missed: number;
  last_missed_at: string | null;
  fire: ClaimedFire | null;
}

/** What became of a claimed fire that was `starting` or `running`. */
export type FireOutcome =
  | { status: 'running' }
  | { status: 'complete' | 'cancelled' }
  | { status: 'error' | 'interrupted'; error: string };

/** How a claimed fire ended: its run's end, or why it never got one. */
export type FireEnd = Exclude<FireOutcome, { status: 'running' }>;

/**
 * Scheduled jobs. Every backend passes `describeJobStore`; several runners (replicas) may share one
 * store, so every decision that must happen once is a conditional write here.
 */
export interface JobStore {
  /** Stores the job unless `limit` jobs exist (counted in the same transaction): then null. */
  create(job: NewJob, limit: number): Promise<JobRecord | null>;
  get(id: string): Promise<JobRecord | null>;
  /**
   * One page of jobs, oldest first, and how many there are in all. Paged in the query: the rows
   * past the page and the tasks past their head are never read.
   */
  list(page: JobPageRequest): Promise<{ jobs: JobListing[]; total: number }>;
  /** Active jobs with `next_run_at` at or before `now` (ISO 8601), earliest first, at most `limit`. */
  due(now: string, limit: number): Promise<JobRecord[]>;
  /** The earliest `next_run_at` of an active job, or null. */
  nextDue(): Promise<string | null>;
  /** Jobs whose most recent fire is `starting` or `running`. */
  unsettled(): Promise<JobRecord[]>;
  /** Applies the claim if `next_run_at` is still `claim.expected`; the updated job, or null when it was not. */
  claim(id: string, claim: FireClaim): Promise<JobRecord | null>;
  /**
   * Records the outcome of the fire that started (or meant to start) run `runId`, if that is still
   * the job's most recent fire and it is unsettled; `starting` → `running` counts the run in
   * `run_count`. False when nothing changed.
   */
  settle(id: string, runId: string, outcome: FireOutcome): Promise<boolean>;
  /** `active` → `paused` (no next fire). Null when the job is unknown or not active. */
  pause(id: string): Promise<JobRecord | null>;
  /** `paused` → `active` with its next fire. Null when the job is unknown or not paused. */
  resume(id: string, nextRunAt: string | null): Promise<JobRecord | null>;
  /** False when the job is unknown. */
  remove(id: string): Promise<boolean>;
}
