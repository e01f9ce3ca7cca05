import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, postgresTestUrl, type TestDatabase } from '../../../test/helpers/postgres.js';
import { PgDatabase } from './database.js';

/** `PgDatabase.transaction` pipelines BEGIN with the first statement; `pipelinedTransaction` sends BEGIN, its statements and COMMIT at once. */
describe.skipIf(postgresTestUrl === null)('PostgreSQL transactions (pipelined)', () => {
  let database: TestDatabase;
  let db: PgDatabase;
  const values = async () => (await db.query<{ v: number }>('SELECT v FROM t ORDER BY v')).rows.map((r) => r.v);

  beforeEach(async () => {
    database = await createTestDatabase();
    db = new PgDatabase(database.url, { poolSize: 2 });
    await db.query('CREATE TABLE t (v integer PRIMARY KEY)');
  });
  afterEach(async () => {
    await db.close();
    await database.drop();
  });

  it('commits pipelined statements together', async () => {
    await db.pipelinedTransaction([{ text: 'INSERT INTO t VALUES (1)' }, { text: 'INSERT INTO t VALUES ($1), ($2)', values: [2, 3] }]);
    expect(await values()).toEqual([1, 2, 3]);
  });

  it.each([
    ['the last', [{ text: 'INSERT INTO t VALUES (1)' }, { text: 'INSERT INTO t VALUES ($1)', values: [5] }]],
    ['the first', [{ text: 'INSERT INTO t VALUES ($1)', values: [5] }, { text: 'INSERT INTO t VALUES (1)' }]],
  ])('rolls the whole pipelined transaction back when %s statement fails, and throws its own error', async (_which, statements) => {
    await db.query('INSERT INTO t VALUES (5)');
    await expect(db.pipelinedTransaction(statements)).rejects.toThrow(/duplicate key/);
    expect(await values()).toEqual([5]);
    // The connection went back to the pool idle, outside any transaction.
    const { rows } = await db.query<{ n: number }>('SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE $1', ['idle in transaction%']);
    expect(rows[0]!.n).toBe(0);
  });

  it('runs each pipelined statement once the one before it finished: a lock taken is held, and what its holder committed is seen', async () => {
    const lockAndAppend = [
      { text: 'SELECT pg_advisory_xact_lock(42)' },
      // Reads the newest value: right only if it starts after the lock is held, with the previous holder's commit in view.
      { text: 'INSERT INTO t SELECT coalesce(max(v), 0) + 1 FROM t' },
    ];
    await Promise.all(Array.from({ length: 12 }, () => db.pipelinedTransaction(lockAndAppend)));
    expect(await values()).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
  });

  it('runs the first statement inside the transaction BEGIN was pipelined with (a failure rolls it back)', async () => {
    await expect(db.transaction(async (tx) => {
      await tx.query('INSERT INTO t VALUES (1)');
      await tx.query('INSERT INTO t VALUES (1)');
    })).rejects.toThrow(/duplicate key/);
    // Had the first INSERT run outside the transaction, it would have stayed.
    expect(await values()).toEqual([]);
    const [first, second] = await db.transaction(async (tx) => {
      const a = (await tx.query<{ at: Date }>('SELECT now() AS at')).rows[0]!.at;
      await tx.query('SELECT pg_sleep(0.02)');
      return [a, (await tx.query<{ at: Date }>('SELECT now() AS at')).rows[0]!.at];
    });
    // now() is the transaction's start: the same for both statements only inside one transaction.
    expect(second!.getTime()).toBe(first!.getTime());
  });
});
