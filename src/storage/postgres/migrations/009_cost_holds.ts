import type { PgMigration } from './types.js';

/**
 * Budget held by provider calls in flight (`CostStore.reserve`), on whichever replica they run: a
 * call holds its estimated cost until its real cost is recorded, so calls in flight together cannot
 * pass `max_spend_usd`. A hold past `expires_at` (its replica died mid-call) no longer counts.
 */
export const costHoldsMigration: PgMigration = {
  version: 9,
  name: 'cost_holds',
  sql: `
    CREATE TABLE cost_holds (
      id text PRIMARY KEY,
      session_id text NOT NULL,
      amount_usd double precision NOT NULL,
      expires_at text COLLATE "C" NOT NULL
    );
    CREATE INDEX cost_holds_session ON cost_holds (session_id, expires_at);
  `,
};
