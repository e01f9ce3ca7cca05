import type { Migration } from './types.js';

/**
 * Claims on waiting channel messages: which runner took a message to run and until when. One
 * process owns a SQLite file, so here a claim only matters across its restarts (it takes its own
 * back); the columns keep the store's contract the same as on a database several replicas share.
 * The index finds a sender's oldest waiting message (a sender's messages run in order).
 */
export const inboxClaimsMigration: Migration = {
  version: 11,
  name: 'inbox_claims',
  sql: `
    ALTER TABLE channel_inbox ADD COLUMN claimed_by TEXT;
    ALTER TABLE channel_inbox ADD COLUMN claimed_until TEXT;
    CREATE INDEX channel_inbox_sender_waiting ON channel_inbox (channel, sender, id) WHERE waiting = 1;
  `,
};
