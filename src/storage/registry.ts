import { ConfigError } from '../config/errors.js';
import type { Config } from '../config/schema.js';
import type { OpenOptions, StorageBackend } from './ports/backend.js';
import type { Storage } from './ports/storage.js';
import { postgresBackend } from './postgres/backend.js';
import { sqliteBackend } from './sqlite/backend.js';

/**
 * Every storage backend, by its `storage.backend` name: the one place that knows them. A backend
 * implements the ports (`storage/ports/`), passes the contract suites (`storage/contract/`) and is
 * listed here; the service, the commands and the doctor reach it through this list alone.
 */
const BACKENDS: readonly StorageBackend[] = [sqliteBackend, postgresBackend];

/** A home without a config file uses the config's default backend. */
const DEFAULT_BACKEND = sqliteBackend;

/** The backend the config names (the default when there is no config). */
export function storageBackend(config: Config | null): StorageBackend {
  if (config === null) return DEFAULT_BACKEND;
  const backend = BACKENDS.find((candidate) => candidate.name === config.storage.backend);
  if (!backend) throw new ConfigError(`config key "storage.backend" names no known backend: ${config.storage.backend} (known: ${BACKENDS.map((b) => b.name).join(', ')})`);
  return backend;
}

/** The configured store for the service, migrated and ready. */
export function openConfiguredStorage(config: Config, home: string, options: OpenOptions = {}): Promise<Storage> {
  return storageBackend(config).open(config, home, options);
}
