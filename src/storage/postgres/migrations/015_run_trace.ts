import type { PgMigration } from './types.js';

/**
 * What a run's trace shows besides its event log (docs/resources.md#run-trace): the model that
 * answered and when its first answer came, stored with the run's end (runs stored before read
 * null); and every approval a run asked, decided or not, found by its run.
 */
export const runTraceMigration: PgMigration = {
  version: 15,
  name: 'run_trace',
  sql: `
    ALTER TABLE runs ADD COLUMN model text;
    ALTER TABLE runs ADD COLUMN first_token_at text COLLATE "C";
    CREATE INDEX approvals_of_run ON approvals (run_id, seq) WHERE run_id IS NOT NULL;
  `,
};
