import type { Migration } from './types.js';

/**
 * Webhook replay protection and idempotency that outlive the process:
 * - `channel_signatures`: each timestamped signature a channel accepted, until its timestamp has
 *   left the tolerance window; recorded in the commit that stores the message, so a restart does
 *   not reopen the window. The unique key makes "recorded twice" impossible.
 * - `channel_inbox.body_digest`: the SHA-256 of the prompt, so a repeated X-Request-Id with another
 *   prompt is told apart from a retry. Rows from before it have none (a repeat of them is a retry).
 * - Request ids are a sender's own: the index now leads with the sender, as the duplicate check does.
 */
export const webhookReplayMigration: Migration = {
  version: 14,
  name: 'webhook_replay',
  sql: `
    CREATE TABLE channel_signatures (
      id INTEGER PRIMARY KEY,
      channel TEXT NOT NULL,
      signature TEXT NOT NULL,
      expires_at TEXT NOT NULL,
      UNIQUE (channel, signature)
    );
    CREATE INDEX channel_signatures_expiry ON channel_signatures (expires_at);
    ALTER TABLE channel_inbox ADD COLUMN body_digest TEXT;
    DROP INDEX channel_inbox_request;
    CREATE INDEX channel_inbox_request ON channel_inbox (channel, sender, request_id, received_at) WHERE request_id IS NOT NULL;
  `,
};
