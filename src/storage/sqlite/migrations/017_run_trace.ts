import type { Migration } from './types.js';

/**
 * What a run's trace shows besides its event log (docs/resources.md#run-trace): the model that
 * answered and when its first answer came, stored with the run's end (runs stored before read
 * null); and every approval a run asked, decided or not, found by its run.
 */
export const runTraceMigration: Migration = {
  version: 17,
  name: 'run_trace',
  sql: `
    ALTER TABLE runs ADD COLUMN model TEXT;
    ALTER TABLE runs ADD COLUMN first_token_at TEXT;
    CREATE INDEX approvals_of_run ON approvals (run_id, seq) WHERE run_id IS NOT NULL;
  `,
};
