import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startCheckpointer } from './checkpointer.js';
import { Database } from './database.js';
import { SqliteStorage } from './index.js';
import { SqliteUnitOfWork } from './unit-of-work.js';
import { collectingLogger } from '../../../test/helpers/log.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function fill(db: Database, rows: number): void {
  db.db.exec('CREATE TABLE IF NOT EXISTS filler (id INTEGER PRIMARY KEY, body TEXT)');
  const insert = db.db.prepare('INSERT INTO filler (body) VALUES (?)');
  for (let i = 0; i < rows; i++) db.transaction(() => insert.run('x'.repeat(2000)));
}

async function waitFor(condition: () => boolean): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    if (condition()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

describe('startCheckpointer', () => {
  it('moves WAL pages into the database file from the worker while the main connection never checkpoints', async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentd-ckpt-'));
    const db = new Database(join(dir, 'agentd.db'));
    const checkpointer = startCheckpointer(db, { intervalMs: 50 });
    expect(db.db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    const before = statSync(db.path).size;
    fill(db, 3000); // ~6 MB: past the 1,000-page point where SQLite would checkpoint on its own
    expect(await waitFor(() => statSync(db.path).size > before + 4_000_000)).toBe(true);
    await checkpointer.stop();
    db.close();
  });

  it('starts the WAL over under a steady stream of commits, holding them back for a quiet pass', async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentd-ckpt-'));
    const db = new Database(join(dir, 'agentd.db'));
    db.db.exec('CREATE TABLE filler (id INTEGER PRIMARY KEY, body TEXT)');
    const insert = db.db.prepare('INSERT INTO filler (body) VALUES (?)');
    const uow = new SqliteUnitOfWork(db);
    const calls: string[] = [];
    const commits = {
      pause: () => (calls.push('pause'), uow.pause()),
      resume: () => (calls.push('resume'), uow.resume()),
    };
    const checkpointer = startCheckpointer(db, { intervalMs: 20, restartFrames: 64, commits });
    // A commit every millisecond or two: a checkpoint from the worker nearly always overlaps one,
    // and without the quiet pass the WAL grew to hold more than all of it (30 MB, measured).
    let written = 0;
    const stream = setInterval(() => {
      void uow.run(() => {
        for (let i = 0; i < 5; i++) insert.run('x'.repeat(2000));
      });
      written += 10_000;
    }, 1);
    await new Promise((r) => setTimeout(r, 1500));
    clearInterval(stream);
    await uow.run(() => undefined);
    const walBytes = statSync(`${db.path}-wal`).size;
    await checkpointer.stop();
    expect(calls.length).toBeGreaterThanOrEqual(2);
    expect(calls.filter((c) => c === 'pause').length).toBe(calls.filter((c) => c === 'resume').length);
    expect(written).toBeGreaterThan(2_000_000);
    expect(walBytes).toBeLessThan(written / 2);
    expect(db.db.prepare('SELECT count(*) FROM filler').pluck().get()).toBe(written / 2000);
    db.close();
  });

  it('hands checkpointing back to the main connection when the worker dies', async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentd-ckpt-'));
    const db = new Database(join(dir, 'agentd.db'));
    const messages: string[] = [];
    const checkpointer = startCheckpointer(db, { intervalMs: 60_000, log: collectingLogger(messages) });
    expect(db.db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    await checkpointer.worker.terminate();
    expect(await waitFor(() => db.db.pragma('wal_autocheckpoint', { simple: true }) === 1000)).toBe(true);
    expect(messages.some((m) => m.includes('checkpointing in the main thread again'))).toBe(true);
    await checkpointer.stop();
    db.close();
  });
});

describe('the service storage', () => {
  it('starts the checkpoint worker after its start-up, the main connection checkpointing until then', async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentd-ckpt-'));
    const storage = new SqliteStorage(join(dir, 'agentd.db'), { checkpointer: true });
    const autocheckpoint = () => storage.database.db.pragma('wal_autocheckpoint', { simple: true });
    expect(autocheckpoint()).toBe(1000);
    expect(await waitFor(() => autocheckpoint() === 0)).toBe(true);
    await storage.close();
  });

  it('closed before the worker was due, starts none', async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentd-ckpt-'));
    const storage = new SqliteStorage(join(dir, 'agentd.db'), { checkpointer: true });
    await storage.close();
    // Past the delay: a worker started now would set a pragma on the closed file and throw,
    // uncaught, which fails this run.
    await new Promise((r) => setTimeout(r, 1500));
    expect(storage.database.open).toBe(false);
  });
});
