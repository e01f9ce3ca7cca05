import type { Migration } from './types.js';

/**
 * Conversation turns and their full-text index.
 *
 * - `seq` is the turn's rowid and the key of its index row. AUTOINCREMENT means a rowid is never
 *   reused, so a stray index row could never point at a later, unrelated turn.
 * - `turns_fts` is contentless (`content=''`): the text is stored once, in `turns`. Each index row
 *   has two columns: `body` (the words) and `scope`, one token `s<HEX of session_id>`, so a
 *   session-scoped search is an index intersection rather than a filter over every match.
 * - The store (`SqliteTurnStore`) writes the index row in the same transaction as the turn, and
 *   removes it by handing FTS5 the exact old values. Not triggers: a statement with a trigger runs
 *   under a statement savepoint, and FTS5 flushes its pending index data at every savepoint, which
 *   made bulk inserts twice as slow (one tiny index segment per row, then merges).
 * - FTS5 `secure-delete` removes a deleted row's tokens from the index b-tree at once (otherwise
 *   they stay in old segments until a merge); with `PRAGMA secure_delete` zeroing freed space, the
 *   deleted text does not remain in the file.
 * - The partial index serves age-based retention, which only ever looks at unpinned turns.
 */
export const memoryMigration: Migration = {
  version: 2,
  name: 'memory_turns',
  sql: `
    CREATE TABLE turns (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      session_id TEXT NOT NULL,
      role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'system', 'tool')),
      content TEXT NOT NULL,
      provider TEXT,
      timestamp TEXT NOT NULL,
      pinned INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1))
    );
    CREATE INDEX turns_session ON turns (session_id, seq);
    CREATE INDEX turns_unpinned_age ON turns (timestamp) WHERE pinned = 0;

    CREATE VIRTUAL TABLE turns_fts USING fts5(
      body, scope, content = '', tokenize = 'unicode61 remove_diacritics 2'
    );
    INSERT INTO turns_fts (turns_fts, rank) VALUES ('secure-delete', 1);
  `,
};
