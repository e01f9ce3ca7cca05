import type { PgMigration } from './types.js';

/**
 * Conversation turns and their full-text index.
 *
 * - `body` is the tsvector of the turn's words as `memory/query.ts` cuts and folds them (case and
 *   diacritics removed), parsed with the `simple` configuration: no stop words and no stemming, so
 *   every word a user types is a word that can be found, exactly as on SQLite. It is written by
 *   the store with the row (not a generated column: the folding is done in the application, the
 *   same code that folds the query).
 * - `seq` orders turns (history, newest matches first) without parsing timestamps.
 * - `run_id` links a turn to the run that stored it, so deleting the turn erases the run's copies.
 * - The partial index serves age-based retention, which only ever looks at unpinned turns.
 */
export const memoryMigration: PgMigration = {
  version: 2,
  name: 'memory_turns',
  sql: `
    CREATE TABLE turns (
      seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      id text NOT NULL UNIQUE,
      session_id text NOT NULL,
      role text NOT NULL CHECK (role IN ('user', 'assistant', 'system', 'tool')),
      content text NOT NULL,
      provider text,
      timestamp text COLLATE "C" NOT NULL,
      pinned boolean NOT NULL DEFAULT false,
      run_id text,
      body tsvector NOT NULL
    );
    CREATE INDEX turns_session ON turns (session_id, seq);
    CREATE INDEX turns_unpinned_age ON turns (timestamp) WHERE NOT pinned;
    CREATE INDEX turns_body ON turns USING gin (body);
  `,
};
