import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from '../../config/errors.js';
import { homeFile } from '../../config/home-layout.js';
import { ensureHome } from '../../config/load.js';
import type { StorageBackend } from '../ports/backend.js';
import { acquireHomeLock } from '../shared/home-lock.js';
import { backupDatabase } from './backup.js';
import { SqliteStorage } from './index.js';

/** The embedded backend: one SQLite file in the home folder, owned by one process. */
export const sqliteBackend: StorageBackend = {
  name: 'sqlite',
  shared: false,

  async open(_config, home, options = {}) {
    const file = homeFile(home, 'database');
    try {
      return new SqliteStorage(file, { now: options.now, checkpointer: options.service, auditIndexing: options.service, log: options.log });
    } catch (error) {
      throw new ConfigError(`cannot open the database ${file} (${(error as Error).message}); check that the home folder is writable and the file is an agentd database, or pass --home`);
    }
  },

  async openReadOnly(_config, home, options = {}) {
    const file = homeFile(home, 'database');
    try {
      if (existsSync(file)) return new SqliteStorage(file, { readonly: true });
      if (options.missing === 'create') return new SqliteStorage(file);
    } catch (error) {
      throw new Error(`cannot open the database ${file} (${(error as Error).message})`);
    }
    throw new Error(`no database at ${file}`);
  },

  // Opening the file migrates it, under the home lock: never beside a running service.
  async migrate(config, home) {
    ensureHome(home);
    const release = acquireHomeLock(home);
    try {
      await (await sqliteBackend.open(config, home)).close();
      return `SQLite ${homeFile(home, 'database')}: schema current`;
    } finally {
      release();
    }
  },

  // Online backup: safe while the service runs, no lock taken.
  async backup(_config, home, file) {
    const source = homeFile(home, 'database');
    if (!existsSync(source)) throw new Error(`no database at ${source}`);
    const target = resolve(file);
    if (existsSync(target)) throw new Error(`${target} already exists; agentd backup never overwrites a file: name a new one`);
    const result = await backupDatabase(source, target);
    if (result.check !== 'ok') throw new Error(`the copy ${target} failed its integrity check (${result.check}); check the disk and run agentd backup again`);
    return `backed up ${source} to ${target} (${result.bytes} bytes, integrity ok)`;
  },
};
