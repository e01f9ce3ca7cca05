import type { Migration } from './types.js';

/**
 * Scheduled jobs. A fire is claimed by an UPDATE that matches the `next_run_at` the runner read
 * and moves it on, so two runners can never both fire one occurrence.
 *
 * - `jobs_due` holds only active jobs with a next fire: the runner's poll (due now? when next?)
 *   is one range read on it.
 * - `jobs_unsettled` holds the few jobs whose last fire is claimed or running: what a runner checks
 *   for fires a dead process left behind.
 */
export const jobsMigration: Migration = {
  version: 8,
  name: 'scheduled_jobs',
  sql: `
    CREATE TABLE jobs (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      name TEXT NOT NULL,
      description TEXT,
      schedule TEXT NOT NULL,
      task TEXT NOT NULL,
      provider TEXT,
      active_hours TEXT,
      timezone TEXT NOT NULL,
      state TEXT NOT NULL CHECK (state IN ('active', 'paused')),
      created_at TEXT NOT NULL,
      next_run_at TEXT,
      last_run_at TEXT,
      last_status TEXT CHECK (last_status IN ('starting', 'running', 'complete', 'error', 'cancelled', 'interrupted')),
      last_run_id TEXT,
      last_error TEXT,
      run_count INTEGER NOT NULL DEFAULT 0,
      skipped INTEGER NOT NULL DEFAULT 0,
      last_skipped_at TEXT,
      last_skip_reason TEXT CHECK (last_skip_reason IN ('in_flight', 'active_hours', 'budget')),
      missed INTEGER NOT NULL DEFAULT 0,
      last_missed_at TEXT
    );
    CREATE INDEX jobs_due ON jobs (next_run_at) WHERE state = 'active' AND next_run_at IS NOT NULL;
    CREATE INDEX jobs_unsettled ON jobs (last_status) WHERE last_status IN ('starting', 'running');
  `,
};
