import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';

/** An open SQLite connection and how to close it. */
export interface Connection {
  db: BetterSqlite3.Database;
  /** Closes the connection and removes what opening it left behind. */
  close(): void;
}

/** What SQLite answers when it can neither read nor create the -shm index (see below). */
const NO_INDEX: ReadonlySet<string> = new Set(['SQLITE_CANTOPEN', 'SQLITE_READONLY_DIRECTORY']);

/**
 * Opens a database file for reading only, on a home that may be read-only (a snapshot, a backup
 * mount): nothing is written to the file, its folder or its WAL.
 *
 * A WAL database is read through its -shm index. SQLite (3.22 and later) reads one that exists, even
 * on read-only media, and creates it where the folder is writable; where neither is possible (a
 * service that shut down cleanly leaves no -shm behind) it refuses: SQLITE_CANTOPEN on a read-only
 * filesystem, SQLITE_READONLY_DIRECTORY in a folder this user may not write. SQLite's way around
 * that, `?immutable=1`, is a URI parameter and better-sqlite3 opens no URIs, and
 * `locking_mode=EXCLUSIVE` needs a write lock the read-only file cannot take. So then the file and
 * its WAL (which holds commits not yet copied into the file) are read from a private copy in the
 * system's temporary folder, removed on close.
 */
export function openReadOnly(path: string): Connection {
  const db = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
  try {
    // The first read opens the WAL and its index.
    db.prepare('SELECT count(*) FROM sqlite_schema').get();
    return { db, close: () => db.close() };
  } catch (error) {
    db.close();
    if (!(error instanceof BetterSqlite3.SqliteError && NO_INDEX.has(error.code))) throw error;
  }
  return openCopy(path);
}

function openCopy(path: string): Connection {
  // Owner-only (mkdtemp makes it 0700); the copies keep the database file's own mode.
  const dir = mkdtempSync(join(tmpdir(), 'agentd-readonly-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    const copy = join(dir, basename(path));
    copyFileSync(path, copy);
    if (existsSync(`${path}-wal`)) copyFileSync(`${path}-wal`, `${copy}-wal`);
    const db = new BetterSqlite3(copy, { readonly: true, fileMustExist: true });
    return {
      db,
      close: () => {
        try {
          db.close();
        } finally {
          remove();
        }
      },
    };
  } catch (error) {
    remove();
    throw error;
  }
}
