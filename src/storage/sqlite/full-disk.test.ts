import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { canMountTmpfs, fillFilesystem, smallTmpfs, unmount } from '../../../test/helpers/mounts.js';
import { StorageFullError } from '../ports/errors.js';
import { startCheckpointer } from './checkpointer.js';
import { Database } from './database.js';
import { SqliteStorage } from './index.js';
import { writeFault } from './write-failure.js';
import { collectingLogger } from '../../../test/helpers/log.js';

/**
 * SQLite on a really full filesystem (a 4 MB tmpfs, where this process may mount one; CI can),
 * beyond what the unit of work's page-limit tests reach: the errors SQLite gives there, closing,
 * and the checkpoint worker.
 */
const canMount = canMountTmpfs();

let dir: string | null = null;
afterEach(() => {
  if (dir) {
    unmount(dir);
    rmSync(dir, { recursive: true, force: true });
  }
  dir = null;
});

/** A database file on a new tmpfs. */
function fileOnTmpfs(): string {
  dir = smallTmpfs('4m')!;
  return join(dir, 'agentd.db');
}

/** Commits that stay in the WAL (nothing checkpoints them): folding them in needs room in the file. */
function commitToWal(db: BetterSqlite3.Database): void {
  db.pragma('wal_autocheckpoint = 0');
  db.exec('CREATE TABLE filler (body TEXT)');
  const insert = db.prepare('INSERT INTO filler VALUES (?)');
  for (let i = 0; i < 100; i++) insert.run('x'.repeat(2000));
}

describe('classifying a failed write', () => {
  it('takes an I/O error with room to spare for what it is, not for a full disk', () => {
    const home = mkdtempSync(join(tmpdir(), 'agentd-fault-'));
    const fault = writeFault(new BetterSqlite3.SqliteError('disk I/O error', 'SQLITE_IOERR_WRITE'), join(home, 'agentd.db'));
    rmSync(home, { recursive: true });
    expect(fault?.error).not.toBeInstanceOf(StorageFullError);
    expect(fault?.reason).toBe('disk I/O error (SQLITE_IOERR_WRITE)');
  });

  it.runIf(canMount)('takes the I/O error SQLite gives when its shared-memory index cannot grow for a full disk', () => {
    dir = smallTmpfs('1m')!;
    const file = join(dir, 'agentd.db');
    new Database(file, []).close(); // a clean close leaves no -shm file
    fillFilesystem(dir);
    const db = new BetterSqlite3(file);
    let error: unknown;
    try {
      db.exec('CREATE TABLE t (v TEXT)');
    } catch (caught) {
      error = caught;
    } finally {
      db.close();
    }
    expect(error).toMatchObject({ code: 'SQLITE_IOERR_SHMSIZE' });
    expect(writeFault(error, file)?.error).toBeInstanceOf(StorageFullError);
  });
});

describe.runIf(canMount)('SQLite on a full filesystem', () => {
  it('closes without an error, keeping its commits in the WAL for the next start', async () => {
    const file = fileOnTmpfs();
    const messages: string[] = [];
    const storage = new SqliteStorage(file, { log: collectingLogger(messages) });
    commitToWal(storage.database.db);
    const filler = fillFilesystem(dir!);
    await storage.close();
    expect(messages).toEqual([expect.stringMatching(/^the WAL could not be folded into the database file at close \(the storage is full\)/)]);
    rmSync(filler);
    const reopened = new Database(file);
    expect(reopened.db.prepare('SELECT count(*) FROM filler').pluck().get()).toBe(100);
    reopened.close();
  });

  it('reports a failing checkpoint once, and once more when it works again', async () => {
    const database = new Database(fileOnTmpfs(), []);
    commitToWal(database.db);
    const filler = fillFilesystem(dir!);
    const messages: string[] = [];
    const checkpointer = startCheckpointer(database, { intervalMs: 20, log: collectingLogger(messages) });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(messages).toEqual([expect.stringMatching(/^WAL checkpoint failed: database or disk is full/)]);
    rmSync(filler);
    for (let i = 0; i < 100 && messages.length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(messages.slice(1)).toEqual(['WAL checkpoint works again']);
    await checkpointer.stop();
    database.close();
  });
});
