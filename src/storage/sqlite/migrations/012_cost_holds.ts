import type { Migration } from './types.js';

/**
 * Budget held by provider calls in flight (`CostStore.reserve`): a call holds its estimated cost
 * from before it starts until its real cost is recorded, so calls running at the same time cannot
 * together pass `max_spend_usd`. A hold past `expires_at` no longer counts.
 */
export const costHoldsMigration: Migration = {
  version: 12,
  name: 'cost_holds',
  sql: `
    CREATE TABLE cost_holds (
      id TEXT PRIMARY KEY,
      session_id TEXT NOT NULL,
      amount_usd REAL NOT NULL,
      expires_at TEXT NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX cost_holds_session ON cost_holds (session_id, expires_at);
  `,
};
