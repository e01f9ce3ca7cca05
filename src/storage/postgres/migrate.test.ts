import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, postgresTestUrl, type TestDatabase } from '../../../test/helpers/postgres.js';
import { PgDatabase } from './database.js';
import { migrate, migrationStatus } from './migrate.js';
import { PG_MIGRATIONS } from './migrations/index.js';
import { PgRunStore } from './run-store.js';

describe.skipIf(postgresTestUrl === null)('PostgreSQL migrations', () => {
  let database: TestDatabase;
  const opened: PgDatabase[] = [];
  const open = () => {
    const db = new PgDatabase(database.url, { poolSize: 2 });
    opened.push(db);
    return db;
  };

  beforeEach(async () => {
    database = await createTestDatabase();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((db) => db.close()));
    await database.drop();
  });

  it('applies every migration once, in order, and records it', async () => {
    const db = open();
    const latest = PG_MIGRATIONS.at(-1)!.version;
    expect(await migrationStatus(db)).toEqual({ applied: 0, latest });
    expect(await migrate(db)).toEqual(PG_MIGRATIONS.map((m) => m.version));
    expect(await migrate(db)).toEqual([]);
    expect(await migrationStatus(db)).toEqual({ applied: latest, latest });
    const { rows } = await db.query<{ version: number; name: string }>('SELECT version, name FROM schema_migrations ORDER BY version');
    expect(rows).toEqual(PG_MIGRATIONS.map(({ version, name }) => ({ version, name })));
  });

  it('lets several replicas start at once: each version is applied by exactly one of them', async () => {
    const runners = Array.from({ length: 4 }, () => open());
    const results = await Promise.all(runners.map((db) => migrate(db)));
    expect(results.flat().sort((a, b) => a - b)).toEqual(PG_MIGRATIONS.map((m) => m.version));
    const { rows } = await runners[0]!.query<{ n: number }>('SELECT count(*) AS n FROM schema_migrations');
    expect(rows[0]!.n).toBe(PG_MIGRATIONS.length);
  });

  it('rolls a failing migration back whole and applies nothing after it', async () => {
    const db = open();
    const broken = [...PG_MIGRATIONS.slice(0, 1), { version: 2, name: 'broken', sql: 'CREATE TABLE half_done (x int); SELECT 1/0;' }];
    await expect(migrate(db, broken)).rejects.toThrow(/division by zero/);
    expect(await migrationStatus(db, broken)).toEqual({ applied: 1, latest: 2 });
    const { rows } = await db.query<{ exists: boolean }>(`SELECT to_regclass('half_done') IS NOT NULL AS exists`);
    expect(rows[0]!.exists).toBe(false);
  });

  it('refuses a database migrated by a newer build', async () => {
    const db = open();
    await migrate(db);
    await db.query(`INSERT INTO schema_migrations (version, name) VALUES (999, 'from the future')`);
    await expect(migrate(db)).rejects.toThrow(/version 999, newer than this agentd knows/);
  });

  it('gives runs stored before their source one from their session (migration 14)', async () => {
    const db = open();
    await migrate(db, PG_MIGRATIONS.filter((m) => m.version < 14));
    for (const [id, session] of [['run_api', 'ses_1'], ['run_job', 'job:job_7'], ['run_hook', 'webhook:ci'], ['run_like', 'JOB:x']]) {
      await db.query(`INSERT INTO runs (id, session_id, status, created_at) VALUES ($1, $2, 'complete', '2026-01-01T00:00:00.000Z')`, [id, session]);
    }
    await migrate(db);
    const { rows } = await db.query('SELECT id, source, job_id FROM runs ORDER BY seq');
    expect(rows).toEqual([
      { id: 'run_api', source: 'api', job_id: null },
      { id: 'run_job', source: 'job', job_id: 'job_7' },
      { id: 'run_hook', source: 'webhook', job_id: null },
      { id: 'run_like', source: 'api', job_id: null },
    ]);
  });

  it('reads runs stored before the model and first token time were kept as null (migration 15)', async () => {
    const db = open();
    await migrate(db, PG_MIGRATIONS.filter((m) => m.version < 15));
    await db.query(`INSERT INTO runs (id, session_id, status, created_at, owner) VALUES ('run_old', 'ses_1', 'complete', '2026-01-01T00:00:00.000Z', 'r1')`);
    await migrate(db);
    const store = new PgRunStore(db, 'r1');
    expect(await store.get('run_old')).toMatchObject({ run_id: 'run_old', status: 'complete', model: null, first_token_at: null });
  });
});
