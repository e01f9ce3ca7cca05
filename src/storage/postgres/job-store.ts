import { TASK_HEAD_CHARS, type FireClaim, type FireOutcome, type JobListing, type JobPageRequest, type JobRecord, type JobStore, type NewJob } from '../ports/jobs.js';
import type { PgDatabase } from './database.js';
import { JOBS_LOCK } from './locks.js';

const JOB_COLUMNS = `id, name, description, schedule, task, provider, active_hours, timezone, state, created_at,
  next_run_at, last_run_at, last_status, last_run_id, last_error, run_count, skipped, last_skipped_at, last_skip_reason,
  missed, last_missed_at`;

/** The columns of a list row: the task as its head and its length in characters. */
const LISTING_COLUMNS = JOB_COLUMNS.replace('task,', `left(task, ${TASK_HEAD_CHARS}) AS task_head, char_length(task) AS task_chars,`);

/** The part of a claim every form shares: the occurrence moves on only while it is still `expected` ($2). */
const CLAIM_SET = 'next_run_at = $3, missed = missed + $4, last_missed_at = coalesce($5, last_missed_at)';
const CLAIM_WHERE = `WHERE id = $1 AND state = 'active' AND next_run_at = $2 RETURNING ${JOB_COLUMNS}`;

/**
 * Scheduled jobs on PostgreSQL, shared by every replica. Each decision that must happen once is one
 * conditional UPDATE: under READ COMMITTED a second replica's UPDATE of the same job waits for the
 * first one's row lock, then re-reads the row, finds `next_run_at` (or the fire's state) moved on
 * and matches nothing. So each occurrence is claimed by exactly one replica.
 */
export class PgJobStore implements JobStore {
  constructor(private readonly db: PgDatabase) {}

  create(job: NewJob, limit: number): Promise<JobRecord | null> {
    // Counting and inserting under one lock: two creations racing for the last slot (on any
    // replica) cannot both see room.
    return this.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [JOBS_LOCK]);
      const { rows: [count] } = await tx.query<{ n: number }>('SELECT count(*) AS n FROM jobs');
      if (count!.n >= limit) return null;
      const { rows } = await tx.query<JobRecord>(`INSERT INTO jobs (id, name, description, schedule, task, provider, active_hours,
          timezone, state, created_at, next_run_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'active', $9, $10) RETURNING ${JOB_COLUMNS}`, [
        job.id, job.name, job.description, job.schedule, job.task, job.provider, job.active_hours, job.timezone, job.created_at, job.next_run_at,
      ]);
      return rows[0]!;
    });
  }

  async get(id: string): Promise<JobRecord | null> {
    return this.one(`SELECT ${JOB_COLUMNS} FROM jobs WHERE id = $1`, [id]);
  }

  async list(page: JobPageRequest): Promise<{ jobs: JobListing[]; total: number }> {
    // One statement, so one snapshot for the page and the count; a page past the end is one row
    // with only the count (the LEFT JOIN's nulls).
    const { rows } = await this.db.query<JobListing & { total: number }>(`SELECT (SELECT count(*)::int FROM jobs) AS total, page.*
      FROM (SELECT 1) AS one LEFT JOIN LATERAL (SELECT ${LISTING_COLUMNS} FROM jobs ORDER BY seq LIMIT $1 OFFSET $2) AS page ON true`,
    [page.limit, page.offset]);
    const total = rows[0]?.total ?? 0;
    const jobs = rows.filter((row) => row.id !== null).map(({ total: _total, ...job }) => job);
    return { jobs, total };
  }

  async due(now: string, limit: number): Promise<JobRecord[]> {
    return (await this.db.query<JobRecord>(`SELECT ${JOB_COLUMNS} FROM jobs
      WHERE state = 'active' AND next_run_at IS NOT NULL AND next_run_at <= $1 ORDER BY next_run_at LIMIT $2`, [now, limit])).rows;
  }

  async nextDue(): Promise<string | null> {
    const { rows } = await this.db.query<{ next: string | null }>(
      `SELECT min(next_run_at) AS next FROM jobs WHERE state = 'active' AND next_run_at IS NOT NULL`);
    return rows[0]?.next ?? null;
  }

  async unsettled(): Promise<JobRecord[]> {
    return (await this.db.query<JobRecord>(`SELECT ${JOB_COLUMNS} FROM jobs WHERE last_status IN ('starting', 'running') ORDER BY seq`)).rows;
  }

  claim(id: string, claim: FireClaim): Promise<JobRecord | null> {
    const base = [id, claim.expected, claim.next_run_at, claim.missed, claim.last_missed_at];
    const { fire } = claim;
    if (fire === null) return this.one(`UPDATE jobs SET ${CLAIM_SET} ${CLAIM_WHERE}`, base);
    if (fire.status === 'starting') {
      return this.one(`UPDATE jobs SET ${CLAIM_SET}, last_run_at = $6, last_status = 'starting', last_run_id = $7, last_error = NULL
        ${CLAIM_WHERE}`, [...base, fire.at, fire.run_id]);
    }
    return this.one(`UPDATE jobs SET ${CLAIM_SET}, skipped = skipped + 1, last_skipped_at = $6, last_skip_reason = $7
      ${CLAIM_WHERE}`, [...base, fire.at, fire.reason]);
  }

  async settle(id: string, runId: string, outcome: FireOutcome): Promise<boolean> {
    const error = 'error' in outcome ? outcome.error : null;
    const { rowCount } = await this.db.query(`UPDATE jobs SET last_status = $3, last_error = $4,
        run_count = run_count + CASE WHEN last_status = 'starting' AND $3 = 'running' THEN 1 ELSE 0 END
      WHERE id = $1 AND last_run_id = $2 AND last_status IN ('starting', 'running')
        AND NOT (last_status = 'running' AND $3 = 'running')`, [id, runId, outcome.status, error]);
    return rowCount === 1;
  }

  pause(id: string): Promise<JobRecord | null> {
    return this.one(`UPDATE jobs SET state = 'paused', next_run_at = NULL WHERE id = $1 AND state = 'active' RETURNING ${JOB_COLUMNS}`, [id]);
  }

  resume(id: string, nextRunAt: string | null): Promise<JobRecord | null> {
    return this.one(`UPDATE jobs SET state = 'active', next_run_at = $2 WHERE id = $1 AND state = 'paused' RETURNING ${JOB_COLUMNS}`, [id, nextRunAt]);
  }

  async remove(id: string): Promise<boolean> {
    return (await this.db.query('DELETE FROM jobs WHERE id = $1', [id])).rowCount === 1;
  }

  private async one(sql: string, values: unknown[]): Promise<JobRecord | null> {
    return (await this.db.query<JobRecord>(sql, values)).rows[0] ?? null;
  }
}
