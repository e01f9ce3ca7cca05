import type { PgMigration } from './types.js';

/**
 * Which run or chat holds each session, on whichever replica (`SessionClaimStore`): one in flight
 * per session across replicas. A claim past `expires_at` belongs to a replica that stopped renewing
 * it; another replica frees the session and ends the run it held. A webhook sender's next message
 * is claimed only once the run of the previous one has ended and let go of its session.
 */
export const sessionClaimsMigration: PgMigration = {
  version: 10,
  name: 'session_claims',
  sql: `
    CREATE TABLE session_claims (
      session_id text PRIMARY KEY,
      holder_id text NOT NULL,
      kind text NOT NULL CHECK (kind IN ('run', 'chat')),
      owner text NOT NULL,
      expires_at text COLLATE "C" NOT NULL
    );
    CREATE INDEX session_claims_expiry ON session_claims (expires_at);
    CREATE INDEX session_claims_owner ON session_claims (owner);
    CREATE INDEX session_claims_holder ON session_claims (holder_id);
    -- A sender's previous message (started or not), whose run must have ended before the next is claimed.
    CREATE INDEX channel_inbox_sender ON channel_inbox (channel, sender, id);
  `,
};
