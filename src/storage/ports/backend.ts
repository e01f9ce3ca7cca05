import type { Config } from '../../config/schema.js';
import type { Logger } from '../../log.js';
import type { Storage } from './storage.js';

/** What a service adds when it opens its store (the commands open it plainer). */
export interface OpenOptions {
  now?: () => number;
  /** Warnings (what could not be done, and why), and what the operator may like to know at start (where the data is). */
  log?: Logger;
  /** What a long-running service adds (on SQLite: WAL checkpoints, background audit indexing). */
  service?: boolean;
}

/**
 * One storage backend as the registry lists it: how the service and each command get at the data
 * of a home. Errors name where the data is, never a password. Its health checks come from the
 * store it opens (`Storage.health`).
 */
export interface StorageBackend {
  /** Its value of `storage.backend`. */
  readonly name: string;
  /**
   * Whether several replicas share the data (each keeps only its id in its home): they then find a
   * stopped one by its liveness key, and must share the approval hash key through their config.
   */
  readonly shared: boolean;
  /** The store of `agentd serve`, migrated and ready. */
  open(config: Config, home: string, options?: OpenOptions): Promise<Storage>;
  /**
   * The store for commands that only read (doctor, audit): never migrated, nothing written, so
   * they work on a read-only home and beside a service. A home without data is refused, unless
   * `missing: 'create'` (the doctor after `agentd init`) asks for the empty store a first start makes.
   * `config` is null on a home without a config file (the default backend).
   */
  openReadOnly(config: Config | null, home: string, options?: { missing?: 'refuse' | 'create' }): Promise<Storage>;
  /** `agentd migrate`: applies the schema migrations; resolves to the line to print. */
  migrate(config: Config, home: string): Promise<string>;
  /** `agentd backup FILE`: copies the data to a new file; resolves to the line to print, or says how this backend is backed up instead. */
  backup(config: Config | null, home: string, target: string): Promise<string>;
}
