import type { PgMigration } from './types.js';

/**
 * Which run or chat holds each session, on whichever replica (`SessionClaimStore`): one in flight
 * per session across replicas. A claim past `expires_at` belongs to a replica that stopped renewing
 * it; another replica frees the session and ends the run it held.
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
  `,
};
