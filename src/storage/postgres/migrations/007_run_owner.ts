import type { PgMigration } from './types.js';

/**
 * The replica that created each run. At start a replica recovers only its own unfinished runs
 * (those its previous process left): the runs other replicas are executing right now must not be
 * marked interrupted under them. Runs from before this version belong to no replica ('').
 */
export const runOwnerMigration: PgMigration = {
  version: 7,
  name: 'run_owner',
  sql: `
    ALTER TABLE runs ADD COLUMN owner text NOT NULL DEFAULT '';
    DROP INDEX runs_unfinished;
    CREATE INDEX runs_unfinished ON runs (owner, seq) WHERE status IN ('pending', 'running');
  `,
};
