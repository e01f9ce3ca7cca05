import type { PgMigration } from './types.js';

/**
 * Webhook replay protection and idempotency shared by the replicas and outliving them:
 * - `channel_signatures`: each timestamped signature a channel accepted, until its timestamp has
 *   left the tolerance window; recorded in the transaction that stores the message, so another
 *   replica (or this one after a restart) refuses the same signed request. The unique key makes
 *   "accepted twice" impossible even without the channel's lock.
 * - `channel_inbox.body_digest`: the SHA-256 of the prompt, so a repeated X-Request-Id with another
 *   prompt is told apart from a retry. Rows from before it have none (a repeat of them is a retry).
 * - Request ids are a sender's own: the index now leads with the sender, as the duplicate check does.
 */
export const webhookReplayMigration: PgMigration = {
  version: 12,
  name: 'webhook_replay',
  sql: `
    CREATE TABLE channel_signatures (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      channel text NOT NULL,
      signature text COLLATE "C" NOT NULL,
      expires_at text COLLATE "C" NOT NULL,
      UNIQUE (channel, signature)
    );
    CREATE INDEX channel_signatures_expiry ON channel_signatures (expires_at);
    ALTER TABLE channel_inbox ADD COLUMN body_digest text;
    DROP INDEX channel_inbox_request;
    CREATE INDEX channel_inbox_request ON channel_inbox (channel, sender, request_id, received_at) WHERE request_id IS NOT NULL;
  `,
};
