import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StorageFullError } from '../ports/errors.js';
import { Database } from './database.js';
import { SqliteUnitOfWork } from './unit-of-work.js';

let dir: string;
let database: Database;
let reader: BetterSqlite3.Database;
let uow: SqliteUnitOfWork;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentd-uow-'));
  database = new Database(join(dir, 'agentd.db'), []);
  // A deferred foreign key is checked only at COMMIT: the way to make a commit itself fail.
  database.db.exec(`
    CREATE TABLE t (v TEXT NOT NULL);
    CREATE TABLE parent (id INTEGER PRIMARY KEY);
    CREATE TABLE child (pid INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED);`);
  // A second connection sees only what has been committed.
  reader = new BetterSqlite3(join(dir, 'agentd.db'), { readonly: true });
  uow = new SqliteUnitOfWork(database);
});

afterEach(() => {
  reader.close();
  database.close();
  rmSync(dir, { recursive: true, force: true });
});

const insert = (v: string | null) => database.db.prepare('INSERT INTO t (v) VALUES (?)').run(v);
const orphan = () => database.db.prepare('INSERT INTO child (pid) VALUES (42)').run();
const rows = () => database.db.prepare('SELECT v FROM t ORDER BY rowid').pluck().all() as string[];
const committedRows = () => reader.prepare('SELECT v FROM t ORDER BY rowid').pluck().all() as string[];

describe('SqliteUnitOfWork', () => {
  it('commits the writes queued in one turn of the event loop together, on the next', async () => {
    const a = uow.run(() => insert('a'));
    const b = uow.run(() => insert('b'));
    expect(rows()).toEqual([]);
    await Promise.all([a, b]);
    expect(committedRows()).toEqual(['a', 'b']);
  });

  it('settles a write only after the commit: inside its resolution the data is committed', async () => {
    const seen: unknown[] = [];
    const a = uow.run(() => insert('a')).then(() => seen.push({ inTransaction: database.db.inTransaction, committed: committedRows() }));
    const b = uow.run(() => insert('b'));
    await Promise.all([a, b]);
    expect(seen).toEqual([{ inTransaction: false, committed: ['a', 'b'] }]);
  });

  it('resolves with what the write returned', async () => {
    expect(await uow.run(() => 7)).toBe(7);
    expect(await uow.run(() => Number(insert('x').lastInsertRowid))).toBe(1);
  });

  it('rolls back a failing write alone (its savepoint); the others commit', async () => {
    const ok1 = uow.run(() => insert('ok1'));
    const bad = uow.run(() => {
      insert('rolled back');
      insert(null);
    });
    const ok2 = uow.run(() => insert('ok2'));
    await expect(bad).rejects.toThrow(/NOT NULL/);
    await Promise.all([ok1, ok2]);
    expect(committedRows()).toEqual(['ok1', 'ok2']);
  });

  it('rejects every write of a batch whose commit fails, and runs no then callback', async () => {
    const resolved: string[] = [];
    const writes = [
      uow.run(() => insert('x')).then(() => resolved.push('x')),
      uow.run(orphan).then(() => resolved.push('orphan')),
      uow.run(() => insert('y')).then(() => resolved.push('y')),
    ];
    const results = await Promise.allSettled(writes);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    for (const result of results) expect(String((result as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY/);
    expect(resolved).toEqual([]);
    expect(rows()).toEqual([]);
    expect(committedRows()).toEqual([]);
    // The next batch commits normally.
    await uow.run(() => insert('after'));
    expect(committedRows()).toEqual(['after']);
  });

  it('runs the onRollback listeners when a commit fails, not when a single write does', async () => {
    let rollbacks = 0;
    uow.onRollback(() => rollbacks++);
    await expect(uow.run(() => insert(null))).rejects.toThrow();
    expect(rollbacks).toBe(0);
    await expect(uow.run(orphan)).rejects.toThrow(/FOREIGN KEY/);
    expect(rollbacks).toBe(1);
  });

  it('runs the onBeforeCommit listeners inside each batch, after its writes; one that throws rolls the batch back', async () => {
    const seen: string[][] = [];
    let fail = false;
    uow.onBeforeCommit(() => {
      seen.push(rows());
      if (fail) throw new Error('sum failed');
      insert('sum');
    });
    await Promise.all([uow.run(() => insert('a')), uow.run(() => insert('b'))]);
    expect(seen).toEqual([['a', 'b']]);
    expect(committedRows()).toEqual(['a', 'b', 'sum']);
    fail = true;
    await expect(uow.run(() => insert('c'))).rejects.toThrow(/sum failed/);
    expect(committedRows()).toEqual(['a', 'b', 'sum']);
  });

  it('commits at once when the queue is full', async () => {
    const writes = Array.from({ length: 10_000 }, (_, i) => uow.run(() => insert(String(i))));
    // No turn of the event loop has passed.
    expect(committedRows()).toHaveLength(10_000);
    await Promise.all(writes);
  });

  it('commits what is queued at close(), and every later write at once', async () => {
    const queued = uow.run(() => insert('queued'));
    uow.close();
    expect(committedRows()).toEqual(['queued']);
    const direct = uow.run(() => insert('direct'));
    expect(committedRows()).toEqual(['queued', 'direct']);
    await Promise.all([queued, direct]);
  });

  it('commits a batched write with the next write that starts a commit, ahead of it', async () => {
    const settled: string[] = [];
    const batched = uow.runBatched(() => insert('batched')).then(() => settled.push('batched'));
    const next = uow.run(() => insert('next')).then(() => settled.push('next'));
    await next;
    expect(committedRows()).toEqual(['batched', 'next']);
    expect(settled).toEqual(['batched', 'next']);
    await batched;
  });

  it('commits a batched write on its own when no other write comes', async () => {
    await uow.runBatched(() => insert('alone'));
    expect(committedRows()).toEqual(['alone']);
  });

  it('commits batched writes at close()', async () => {
    const batched = uow.runBatched(() => insert('batched'));
    uow.close();
    expect(committedRows()).toEqual(['batched']);
    await batched;
  });

  it('holds commits back while paused, writes and batched writes alike, and commits them at resume()', async () => {
    uow.pause();
    let settled = 0;
    const writes = [uow.run(() => insert('held')), uow.runBatched(() => insert('batched'))].map((p) => p.then(() => settled++));
    await new Promise((r) => setTimeout(r, 20)); // past the next turn and the batched write's wait
    expect({ settled, committed: committedRows() }).toEqual({ settled: 0, committed: [] });
    uow.resume();
    expect(committedRows()).toEqual(['held', 'batched']);
    await Promise.all(writes);
    expect(settled).toBe(2);
  });

  it('commits at close() even while paused', async () => {
    uow.pause();
    const held = uow.run(() => insert('held'));
    uow.close();
    expect(committedRows()).toEqual(['held']);
    await held;
  });

  it('rejects writes once the database has closed', async () => {
    const queued = uow.run(() => insert('lost'));
    database.close();
    await expect(queued).rejects.toThrow(/closed/);
    uow.close();
    await expect(uow.run(() => insert('late'))).rejects.toThrow(/closed/);
  });

  describe('on a full disk', () => {
    // SQLite's own size limit: past it the engine answers SQLITE_FULL exactly as on a full disk.
    const fill = () => database.db.pragma(`max_page_count = ${database.db.pragma('page_count', { simple: true }) as number}`);
    const free = () => database.db.pragma('max_page_count = 1073741823');
    const large = () => insert('x'.repeat(100_000));

    it('rejects with StorageFullError and keeps the failure until a write lands again', async () => {
      const clock = Date.parse('2026-05-01T10:00:00.000Z');
      uow = new SqliteUnitOfWork(database, () => clock);
      fill();
      const refused = uow.run(large);
      await expect(refused).rejects.toBeInstanceOf(StorageFullError);
      await expect(refused).rejects.toThrow(/^the storage is full/);
      expect(uow.lastFailure).toEqual({ at: '2026-05-01T10:00:00.000Z', reason: 'the storage is full' });
      // A write refused for its own data says nothing about the disk: the failure stays.
      await expect(uow.run(() => insert(null))).rejects.toThrow(/NOT NULL/);
      expect(uow.lastFailure).not.toBeNull();

      free();
      await uow.run(large);
      expect(uow.lastFailure).toBeNull();
      expect(committedRows()).toHaveLength(1);
    });

    it('records no failure for writes refused for their data', async () => {
      await expect(uow.run(() => insert(null))).rejects.toThrow(/NOT NULL/);
      await expect(uow.run(orphan)).rejects.toThrow(/FOREIGN KEY/);
      expect(uow.lastFailure).toBeNull();
    });
  });
});
