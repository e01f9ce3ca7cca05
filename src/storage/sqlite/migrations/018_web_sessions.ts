import type { Migration } from './types.js';

/**
 * The console's browser sessions, so a login holds across a restart. Kept under the digest of
 * their token (never the token); `seq` is creation order, which is also expiry order (every
 * session lives the same TTL) and eviction order.
 */
export const webSessionsMigration: Migration = {
  version: 18,
  name: 'web_sessions',
  sql: `
    CREATE TABLE web_sessions (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      token_digest TEXT NOT NULL UNIQUE,
      id TEXT NOT NULL,
      csrf_token TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL
    );
    CREATE INDEX web_sessions_expiry ON web_sessions (expires_at);
  `,
};
