import type { Migration } from './types.js';

/**
 * Conversation turns and their full-text index.
 *
 * - `seq` is the turn's rowid and the key of its index row. AUTOINCREMENT means a rowid is never
 *   reused, so even a stray index row could never point at a later, unrelated turn.
 * - `turns_fts` is contentless (`content=''`): the text lives once, in `turns`. Each index row has
 *   two columns: `body` (the words) and `scope`, a single token `s<hex of session_id>` so a
 *   session-scoped search is an index intersection rather than a scan of every match.
 * - The index is kept in step by triggers, so an insert, delete or content change and its index
 *   change are one statement, hence one transaction, whoever issues it. The update trigger fires
 *   only for `seq`, `content` and `session_id`: pinning never rewrites the index row.
 * - A contentless row can only be removed by handing FTS5 the exact old values, which the delete
 *   trigger does from `old.*`. `INSERT OR REPLACE` would delete the old row without firing delete
 *   triggers (unless recursive_triggers is on) and orphan its index row, so an insert whose id or
 *   seq already exists is refused outright; the store's upsert is UPDATE-then-INSERT instead.
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

    CREATE TRIGGER turns_refuse_replace BEFORE INSERT ON turns
      WHEN EXISTS (SELECT 1 FROM turns WHERE id = new.id OR seq = new.seq)
    BEGIN
      SELECT RAISE(ABORT, 'turn already exists');
    END;

    CREATE TRIGGER turns_fts_insert AFTER INSERT ON turns BEGIN
      INSERT INTO turns_fts (rowid, body, scope)
        VALUES (new.seq, new.content, 's' || hex(new.session_id));
    END;

    CREATE TRIGGER turns_fts_delete AFTER DELETE ON turns BEGIN
      INSERT INTO turns_fts (turns_fts, rowid, body, scope)
        VALUES ('delete', old.seq, old.content, 's' || hex(old.session_id));
    END;

    CREATE TRIGGER turns_fts_update AFTER UPDATE OF seq, content, session_id ON turns BEGIN
      INSERT INTO turns_fts (turns_fts, rowid, body, scope)
        VALUES ('delete', old.seq, old.content, 's' || hex(old.session_id));
      INSERT INTO turns_fts (rowid, body, scope)
        VALUES (new.seq, new.content, 's' || hex(new.session_id));
    END;
  `,
};
