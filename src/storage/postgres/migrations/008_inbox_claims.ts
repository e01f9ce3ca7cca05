import type { PgMigration } from './types.js';

/**
 * Claims on waiting channel messages, so any replica can take a message to run: which replica took
 * it and until when (a replica killed after its 202 loses nothing: its claims end and another
 * replica takes the messages). The index finds a sender's oldest waiting message (a sender's
 * messages run in order).
 */
export const inboxClaimsMigration: PgMigration = {
  version: 8,
  name: 'inbox_claims',
  sql: `
    ALTER TABLE channel_inbox ADD COLUMN claimed_by text, ADD COLUMN claimed_until text COLLATE "C";
    CREATE INDEX channel_inbox_sender_waiting ON channel_inbox (channel, sender, id) WHERE waiting;
  `,
};
