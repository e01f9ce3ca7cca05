import { afterEach, describe, expect, it } from 'vitest';
import { Database } from '../storage/database.js';
import { WriteBatch } from './write-batch.js';

const dbs: Database[] = [];
afterEach(() => dbs.splice(0).forEach((db) => db.close()));

function setup() {
  const db = new Database(':memory:');
  dbs.push(db);
  db.db.exec('CREATE TABLE t (v TEXT NOT NULL)');
  const insert = db.db.prepare('INSERT INTO t (v) VALUES (?)');
  const rows = () => (db.db.prepare('SELECT v FROM t ORDER BY rowid').pluck().all() as string[]);
  const errors: unknown[] = [];
  const batch = new WriteBatch(db, (err) => errors.push(err));
  return { db, insert, rows, errors, batch };
}

describe('WriteBatch', () => {
  it('commits queued writes on the next turn of the event loop, then runs their callbacks in order', async () => {
    const { insert, rows, batch } = setup();
    const seen: string[] = [];
    batch.defer(() => insert.run('a'), () => seen.push(`a:${rows().join()}`));
    batch.defer(() => insert.run('b'), () => seen.push('b'));
    expect(rows()).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(rows()).toEqual(['a', 'b']);
    // Callbacks run after the commit: the first already sees both rows.
    expect(seen).toEqual(['a:a,b', 'b']);
  });

  it('flushes for a key only when a queued write touches it', () => {
    const { insert, rows, batch } = setup();
    batch.defer(() => insert.run('x'), undefined, 'session:1');
    batch.flushFor('session:2');
    expect(rows()).toEqual([]);
    batch.flushFor('session:1');
    expect(rows()).toEqual(['x']);
  });

  it('keeps the other writes of a batch when one fails, and reports the failure', () => {
    const { insert, rows, batch, errors } = setup();
    const after: string[] = [];
    batch.defer(() => insert.run('ok1'), () => after.push('ok1'));
    batch.defer(() => {
      insert.run('rolled back');
      insert.run(null);
    }, () => after.push('failed'));
    batch.defer(() => insert.run('ok2'));
    batch.flush();
    expect(rows()).toEqual(['ok1', 'ok2']);
    expect(errors).toHaveLength(1);
    expect(after).toEqual(['ok1', 'failed']);
  });

  it('writes at once after close', () => {
    const { insert, rows, batch } = setup();
    batch.defer(() => insert.run('queued'));
    batch.close();
    expect(rows()).toEqual(['queued']);
    batch.defer(() => insert.run('direct'));
    expect(rows()).toEqual(['queued', 'direct']);
  });
});
