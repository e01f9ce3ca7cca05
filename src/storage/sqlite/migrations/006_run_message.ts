import type { Migration } from './types.js';

/**
 * The run's message (secret-censored, like the user turn), stored with the pending run in the
 * commit that precedes the 202: a run interrupted before its turns were stored still shows what
 * it was asked. Runs from before this version have no message kept; they read as ''.
 */
export const runMessageMigration: Migration = {
  version: 6,
  name: 'run_message',
  sql: `ALTER TABLE runs ADD COLUMN message TEXT NOT NULL DEFAULT '';`,
};
