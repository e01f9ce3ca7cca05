import { TASK_HEAD_CHARS, type FireClaim, type FireOutcome, type JobListing, type JobPageRequest, type JobRecord, type JobStore, type NewJob } from '../ports/jobs.js';
import type { Database } from './database.js';
import type { SqliteUnitOfWork } from './unit-of-work.js';

const JOB_COLUMNS = `id, name, description, schedule, task, provider, active_hours, timezone, state, created_at,
  next_run_at, last_run_at, last_status, last_run_id, last_error, run_count, skipped, last_skipped_at, last_skip_reason,
  missed, last_missed_at`;

/** The columns of a list row: the task as its head and its length (`length` counts characters of TEXT). */
const LISTING_COLUMNS = JOB_COLUMNS.replace('task,', `substr(task, 1, ${TASK_HEAD_CHARS}) AS task_head, length(task) AS task_chars,`);

/**
 * Scheduled jobs on the service's SQLite file. Every decision that must happen once across runners
 * (claiming an occurrence, settling a fire, pausing, resuming) is one conditional UPDATE: another
 * connection to the same file (a second runner) sees it committed or not at all.
 */
export class SqliteJobStore implements JobStore {
  private readonly stmt;
  /** The page and the count in one read transaction, so they see the same jobs. */
  private readonly page: (page: JobPageRequest) => { jobs: JobListing[]; total: number };

  constructor(
    database: Database,
    private readonly uow: SqliteUnitOfWork,
  ) {
    const db = database.db;
    this.stmt = {
      count: db.prepare('SELECT count(*) FROM jobs').pluck(),
      insert: db.prepare(`INSERT INTO jobs (id, name, description, schedule, task, provider, active_hours, timezone, state,
          created_at, next_run_at)
        VALUES (@id, @name, @description, @schedule, @task, @provider, @active_hours, @timezone, 'active', @created_at, @next_run_at)
        RETURNING ${JOB_COLUMNS}`),
      get: db.prepare(`SELECT ${JOB_COLUMNS} FROM jobs WHERE id = ?`),
      list: db.prepare(`SELECT ${LISTING_COLUMNS} FROM jobs ORDER BY seq LIMIT ? OFFSET ?`),
      due: db.prepare(`SELECT ${JOB_COLUMNS} FROM jobs
        WHERE state = 'active' AND next_run_at IS NOT NULL AND next_run_at <= ? ORDER BY next_run_at LIMIT ?`),
      nextDue: db.prepare(`SELECT min(next_run_at) FROM jobs WHERE state = 'active' AND next_run_at IS NOT NULL`).pluck(),
      unsettled: db.prepare(`SELECT ${JOB_COLUMNS} FROM jobs WHERE last_status IN ('starting', 'running') ORDER BY seq`),
      claim: db.prepare(`UPDATE jobs SET next_run_at = @next_run_at, missed = missed + @missed,
          last_missed_at = coalesce(@last_missed_at, last_missed_at)
        WHERE id = @id AND state = 'active' AND next_run_at = @expected RETURNING ${JOB_COLUMNS}`),
      claimStart: db.prepare(`UPDATE jobs SET next_run_at = @next_run_at, missed = missed + @missed,
          last_missed_at = coalesce(@last_missed_at, last_missed_at),
          last_run_at = @at, last_status = 'starting', last_run_id = @run_id, last_error = NULL
        WHERE id = @id AND state = 'active' AND next_run_at = @expected RETURNING ${JOB_COLUMNS}`),
      claimSkip: db.prepare(`UPDATE jobs SET next_run_at = @next_run_at, missed = missed + @missed,
          last_missed_at = coalesce(@last_missed_at, last_missed_at),
          skipped = skipped + 1, last_skipped_at = @at, last_skip_reason = @reason
        WHERE id = @id AND state = 'active' AND next_run_at = @expected RETURNING ${JOB_COLUMNS}`),
      settle: db.prepare(`UPDATE jobs SET last_status = @status, last_error = @error,
          run_count = run_count + (last_status = 'starting' AND @status = 'running')
        WHERE id = @id AND last_run_id = @run_id AND last_status IN ('starting', 'running')
          AND NOT (last_status = 'running' AND @status = 'running')`),
      pause: db.prepare(`UPDATE jobs SET state = 'paused', next_run_at = NULL WHERE id = ? AND state = 'active' RETURNING ${JOB_COLUMNS}`),
      resume: db.prepare(`UPDATE jobs SET state = 'active', next_run_at = ? WHERE id = ? AND state = 'paused' RETURNING ${JOB_COLUMNS}`),
      remove: db.prepare('DELETE FROM jobs WHERE id = ?'),
    };
    this.page = db.transaction((page: JobPageRequest) => ({
      jobs: this.stmt.list.all(page.limit, page.offset) as JobListing[],
      total: this.stmt.count.get() as number,
    }));
  }

  create(job: NewJob, limit: number): Promise<JobRecord | null> {
    // Counted in the write itself: two creations racing for the last slot cannot both get it.
    return this.uow.run(() => ((this.stmt.count.get() as number) >= limit ? null : (this.stmt.insert.get(job) as JobRecord)));
  }

  async get(id: string): Promise<JobRecord | null> {
    return (this.stmt.get.get(id) as JobRecord | undefined) ?? null;
  }

  async list(page: JobPageRequest): Promise<{ jobs: JobListing[]; total: number }> {
    return this.page(page);
  }

  async due(now: string, limit: number): Promise<JobRecord[]> {
    return this.stmt.due.all(now, limit) as JobRecord[];
  }

  async nextDue(): Promise<string | null> {
    return (this.stmt.nextDue.get() as string | null) ?? null;
  }

  async unsettled(): Promise<JobRecord[]> {
    return this.stmt.unsettled.all() as JobRecord[];
  }

  claim(id: string, claim: FireClaim): Promise<JobRecord | null> {
    const base = { id, expected: claim.expected, next_run_at: claim.next_run_at, missed: claim.missed, last_missed_at: claim.last_missed_at };
    const { fire } = claim;
    return this.uow.run(() => {
      const row = fire === null
        ? this.stmt.claim.get(base)
        : fire.status === 'starting'
          ? this.stmt.claimStart.get({ ...base, at: fire.at, run_id: fire.run_id })
          : this.stmt.claimSkip.get({ ...base, at: fire.at, reason: fire.reason });
      return (row as JobRecord | undefined) ?? null;
    });
  }

  settle(id: string, runId: string, outcome: FireOutcome): Promise<boolean> {
    const error = 'error' in outcome ? outcome.error : null;
    return this.uow.run(() => this.stmt.settle.run({ id, run_id: runId, status: outcome.status, error }).changes === 1);
  }

  pause(id: string): Promise<JobRecord | null> {
    return this.uow.run(() => (this.stmt.pause.get(id) as JobRecord | undefined) ?? null);
  }

  resume(id: string, nextRunAt: string | null): Promise<JobRecord | null> {
    return this.uow.run(() => (this.stmt.resume.get(nextRunAt, id) as JobRecord | undefined) ?? null);
  }

  remove(id: string): Promise<boolean> {
    return this.uow.run(() => this.stmt.remove.run(id).changes === 1);
  }
}
