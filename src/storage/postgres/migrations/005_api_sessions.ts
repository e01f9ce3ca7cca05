import type { PgMigration } from './types.js';

/**
 * API sessions, shared by every replica (on SQLite they live in the process). `used` orders them
 * by recency: drawn from a sequence on creation and on every use, so "most recently used" is exact
 * even for uses within the same millisecond on different replicas.
 */
export const apiSessionsMigration: PgMigration = {
  version: 5,
  name: 'api_sessions',
  sql: `
    CREATE SEQUENCE api_sessions_used;
    CREATE TABLE api_sessions (
      id text PRIMARY KEY,
      name text,
      provider text NOT NULL,
      created_at text COLLATE "C" NOT NULL,
      last_used_at text COLLATE "C" NOT NULL,
      turn_count bigint NOT NULL DEFAULT 0,
      used bigint NOT NULL DEFAULT nextval('api_sessions_used')
    );
    CREATE INDEX api_sessions_recency ON api_sessions (used);
  `,
};
