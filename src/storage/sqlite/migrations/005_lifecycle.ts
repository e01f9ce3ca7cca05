import type { Migration } from './types.js';

/**
 * What retention and erasure need.
 *
 * - `turns.run_id` links a turn to the run that stored it, so deleting the turn can erase the
 *   copies of its text in that run's record and event log.
 * - Retention deletes the oldest rows first: finished runs by `finished_at` (partial index: running
 *   ones are never pruned), cost rows by `timestamp`; audit events already have their time index.
 */
export const lifecycleMigration: Migration = {
  version: 5,
  name: 'data_lifecycle',
  sql: `
    ALTER TABLE turns ADD COLUMN run_id TEXT;
    CREATE INDEX runs_finished_age ON runs (finished_at) WHERE finished_at IS NOT NULL;
    CREATE INDEX costs_age ON costs (timestamp);
    CREATE INDEX cost_sessions_age ON cost_sessions (last_call_at);
  `,
};
