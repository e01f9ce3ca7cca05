import type { PgMigration } from './types.js';

/**
 * What started each run (`source`: api, job, webhook, discord) and, for a job's fire, its job, so
 * the runs of every session can be listed newest first and narrowed by them. Runs stored before
 * this version are told apart by their session: `webhook:<sender>`, `job:<id>`, else an API session.
 * Each filter of the list has an index ending in `seq`, the creation order it is read in.
 */
export const runSourceMigration: PgMigration = {
  version: 14,
  name: 'run_source',
  sql: `
    ALTER TABLE runs ADD COLUMN source text NOT NULL DEFAULT 'api' CHECK (source IN ('api', 'job', 'webhook', 'discord'));
    ALTER TABLE runs ADD COLUMN job_id text;
    UPDATE runs SET source = 'webhook' WHERE starts_with(session_id, 'webhook:');
    UPDATE runs SET source = 'job', job_id = substr(session_id, 5) WHERE starts_with(session_id, 'job:');
    CREATE INDEX runs_status ON runs (status, seq);
    CREATE INDEX runs_source ON runs (source, seq);
    CREATE INDEX runs_job ON runs (job_id, seq) WHERE job_id IS NOT NULL;
    CREATE INDEX runs_created ON runs (created_at);
  `,
};
