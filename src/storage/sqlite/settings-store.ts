import type { SettingsStore } from '../ports/settings.js';
import type { Database } from './database.js';
import type { SqliteUnitOfWork } from './unit-of-work.js';

/** Settings on the service's SQLite file, one row per key. */
export class SqliteSettingsStore implements SettingsStore {
  private readonly stmt;

  constructor(
    database: Database,
    private readonly uow: SqliteUnitOfWork,
  ) {
    const db = database.db;
    this.stmt = {
      get: db.prepare('SELECT value FROM settings WHERE key = ?').pluck(),
      set: db.prepare(`INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
        ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`),
    };
  }

  async get(key: string): Promise<string | null> {
    return (this.stmt.get.get(key) as string | undefined) ?? null;
  }

  async set(key: string, value: string, at: string): Promise<void> {
    await this.uow.run(() => this.stmt.set.run(key, value, at));
  }
}
