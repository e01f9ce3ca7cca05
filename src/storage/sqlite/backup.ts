import { closeSync, openSync, rmSync, statSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { openReadOnly } from './read-only.js';

export interface BackupResult {
  /** Size of the copy. */
  bytes: number;
  /** `PRAGMA quick_check` of the copy: "ok" or the first problem found. */
  check: string;
}

/**
 * Copies a database with SQLite's online backup API, safe beside the service that writes it: the
 * copy is read from a read-only connection inside one read transaction, which WAL lets run next to
 * the writer without blocking it, so the copy is the database as of one commit. All pages go in
 * one step after the first: in small steps the backup starts over whenever the service commits in
 * between, which under steady writes may never finish.
 *
 * The destination is created here, owner-only (it holds conversations and the audit log), and
 * never overwritten: an existing file is refused before anything is read. A copy that fails is
 * removed.
 */
export async function backupDatabase(source: string, destination: string): Promise<BackupResult> {
  closeSync(openSync(destination, 'wx', 0o600));
  let connection: ReturnType<typeof openReadOnly> | null = null;
  try {
    connection = openReadOnly(source);
    await connection.db.backup(destination, { progress: () => 0x7fffffff });
    const check = selfContained(destination);
    return { bytes: statSync(destination).size, check };
  } catch (error) {
    rmSync(destination, { force: true });
    throw error;
  } finally {
    connection?.close();
  }
}

/**
 * The copy inherits the service's WAL mode, in which every open leaves -wal and -shm files beside
 * it; switched to a rollback journal it is one file to move, store and restore (the service turns
 * WAL back on when it opens it). Answers the copy's `PRAGMA quick_check`.
 */
function selfContained(file: string): string {
  const copy = new BetterSqlite3(file, { fileMustExist: true });
  try {
    copy.pragma('journal_mode = DELETE');
    return String(copy.pragma('quick_check', { simple: true }));
  } finally {
    copy.close();
  }
}
