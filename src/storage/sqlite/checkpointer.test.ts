import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startCheckpointer } from './checkpointer.js';
import { Database } from './database.js';
import { SqliteStorage } from './index.js';
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
