import type { PgDatabase, Queryable } from './database.js';
import { MIGRATION_LOCK } from './locks.js';
import { PG_MIGRATIONS, type PgMigration } from './migrations/index.js';

export interface MigrationStatus {
  /** Highest version applied to the database (0 for an empty one). */
  applied: number;
  /** Highest version this build knows. */
  latest: number;
}

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version integer PRIMARY KEY,
  name text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;

async function appliedVersion(tx: Queryable): Promise<number> {
  const { rows } = await tx.query<{ version: number | null }>('SELECT max(version) AS version FROM schema_migrations');
  return rows[0]?.version ?? 0;
}

/**
 * Applies the migrations the database lacks, each in its own transaction under the migration lock:
 * several replicas starting at once each wait for the lock, then find the version already applied
 * and skip it. A database migrated by a newer build (a version this build does not know) is
 * refused rather than used with a schema this code was not written for. Returns the versions this
 * call applied.
 */
export async function migrate(db: PgDatabase, migrations: readonly PgMigration[] = PG_MIGRATIONS): Promise<number[]> {
  const applied: number[] = [];
  const latest = migrations.at(-1)?.version ?? 0;
  for (const migration of migrations) {
    const ran = await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await tx.query(CREATE_TABLE);
      const current = await appliedVersion(tx);
      if (current > latest) {
        throw new Error(`the database schema is at version ${current}, newer than this agentd knows (${latest}): upgrade agentd`);
      }
      if (current >= migration.version) return false;
      await tx.query(migration.sql);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
      return true;
    });
    if (ran) applied.push(migration.version);
  }
  return applied;
}

/** What the doctor reports: the applied version against the latest one (both 0 on an empty database). */
export async function migrationStatus(db: PgDatabase, migrations: readonly PgMigration[] = PG_MIGRATIONS): Promise<MigrationStatus> {
  const latest = migrations.at(-1)?.version ?? 0;
  const { rows } = await db.query<{ exists: boolean }>(`SELECT to_regclass('schema_migrations') IS NOT NULL AS exists`);
  return { applied: rows[0]?.exists ? await appliedVersion(db) : 0, latest };
}
