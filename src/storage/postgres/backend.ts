import { ConfigError } from '../../config/errors.js';
import type { Config } from '../../config/schema.js';
import { redactServiceUrl, withoutPassword } from '../../config/service-url.js';
import type { StorageBackend } from '../ports/backend.js';
import { replicaIdOf } from './replica-id.js';

// The driver is loaded only when this backend is used: a SQLite home never pays for it at start.

/** The shared backend: a PostgreSQL database several replicas use; the home keeps only the replica's id. */
export const postgresBackend: StorageBackend = {
  name: 'postgres',
  shared: true,

  // Migrations run first; replicas starting together take turns.
  async open(config, home, options = {}) {
    const url = config.storage.postgres_url;
    if (url === null) throw new ConfigError('config key "storage.backend" is postgres but no PostgreSQL URL is set: set storage.postgres_url or DATABASE_URL');
    const replicaId = replicaIdOf(home);
    const { PostgresStorage } = await import('./index.js');
    try {
      const storage = await PostgresStorage.open(url, { poolSize: config.storage.postgres_pool_size, now: options.now, log: options.log, replicaId });
      options.log?.info(`storage: PostgreSQL at ${redactServiceUrl(url)} (schema migrated)`);
      return storage;
    } catch (error) {
      throw new ConfigError(`cannot open the PostgreSQL database ${redactServiceUrl(url)} (${withoutPassword(causeOf(error).message, url)}); check that the server is running and storage.postgres_url or DATABASE_URL is right`);
    }
  },

  // A small pool, and no migration: that is for `agentd serve` and `agentd migrate`.
  async openReadOnly(config) {
    const { PostgresStorage } = await import('./index.js');
    return new PostgresStorage(urlOf(config), { poolSize: 2 });
  },

  // Before a rolling upgrade of the replicas (they also migrate at start, one at a time).
  async migrate(config) {
    const url = urlOf(config);
    const [{ PgDatabase }, { migrate, migrationStatus }] = await Promise.all([import('./database.js'), import('./migrate.js')]);
    const db = new PgDatabase(url, { poolSize: 1 });
    try {
      const applied = await migrate(db);
      const { latest } = await migrationStatus(db);
      return `PostgreSQL ${redactServiceUrl(url)}: ${applied.length === 0 ? 'nothing to apply' : `applied ${applied.join(', ')}`}; schema at version ${latest}`;
    } catch (error) {
      throw new Error(`cannot migrate PostgreSQL ${redactServiceUrl(url)}: ${withoutPassword(causeOf(error).message, url)}`);
    } finally {
      await db.close();
    }
  },

  // The data is not in the home: pg_dump backs it up.
  async backup(config) {
    const url = config?.storage.postgres_url;
    throw new Error(
      `agentd backup copies the SQLite database; this home keeps its data in PostgreSQL${url ? ` (${redactServiceUrl(url)})` : ''}: ` +
      'back that up with pg_dump (for example pg_dump --format=custom --file=agentd.dump "$DATABASE_URL")',
    );
  },
};

/** The config's URL: set whenever the backend is postgres (the config refuses it otherwise). */
const urlOf = (config: Config | null): string => config!.storage.postgres_url!;

/** The driver's own error, under the wrapper that says nothing was read or written. */
const causeOf = (error: unknown): Error => (error as Error).cause instanceof Error ? ((error as Error).cause as Error) : (error as Error);
