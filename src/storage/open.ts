import { join } from 'node:path';
import { ConfigError } from '../config/errors.js';
import type { Config } from '../config/schema.js';
import { redactServiceUrl, withoutPassword } from '../config/service-url.js';
import { replicaIdOf } from './replica-id.js';
import { SqliteStorage } from './sqlite/index.js';
import type { Storage } from './ports/storage.js';

export interface OpenStorageOptions {
  now?: () => number;
  log?: (message: string) => void;
  /** What a long-running service adds on SQLite (WAL checkpoints, background audit indexing). */
  service?: boolean;
}

/** The SQLite file of a home folder. */
export const databaseFileOf = (home: string) => join(home, 'agentd.db');

/**
 * The configured backend, migrated and ready: the SQLite file in the home folder, or the
 * PostgreSQL database of `storage.postgres_url` (whose migrations run first; replicas starting
 * together take turns). A failure names where the data was to be, never a password.
 */
export async function openConfiguredStorage(config: Config, home: string, options: OpenStorageOptions = {}): Promise<Storage> {
  if (config.storage.backend === 'postgres') {
    const url = config.storage.postgres_url;
    if (url === null) throw new ConfigError('config key "storage.backend" is postgres but no PostgreSQL URL is set: set storage.postgres_url or DATABASE_URL');
    const replicaId = replicaIdOf(home);
    // Loaded only for this backend: a SQLite service never pays for the PostgreSQL driver at start.
    const { PostgresStorage } = await import('./postgres/index.js');
    try {
      return await PostgresStorage.open(url, { poolSize: config.storage.postgres_pool_size, now: options.now, log: options.log, replicaId });
    } catch (error) {
      const reason = (error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message;
      throw new ConfigError(`cannot open the PostgreSQL database ${redactServiceUrl(url)} (${withoutPassword(reason, url)}); check that the server is running and storage.postgres_url or DATABASE_URL is right`);
    }
  }
  const file = databaseFileOf(home);
  try {
    return new SqliteStorage(file, { now: options.now, checkpointer: options.service, auditIndexing: options.service, log: options.log });
  } catch (error) {
    throw new ConfigError(`cannot open the database ${file} (${(error as Error).message}); check that the home folder is writable and the file is an agentd database, or pass --home`);
  }
}
