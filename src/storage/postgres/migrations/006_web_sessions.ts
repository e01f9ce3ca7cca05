import type { PgMigration } from './types.js';

/**
 * The console's browser sessions, so a login holds on every replica. Kept under the digest of
 * their token (never the token); `seq` is creation order, which is also expiry order (every
 * session lives the same TTL) and eviction order.
 */
export const webSessionsMigration: PgMigration = {
  version: 6,
  name: 'web_sessions',
  sql: `
    CREATE TABLE web_sessions (
      seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      token_digest text NOT NULL UNIQUE,
      id text NOT NULL,
      csrf_token text NOT NULL,
      created_at bigint NOT NULL,
      expires_at bigint NOT NULL
    );
    CREATE INDEX web_sessions_expiry ON web_sessions (expires_at);
  `,
};
