import type { SettingsStore } from '../ports/settings.js';
import type { PgDatabase } from './database.js';
import { WriteQueue } from './write-queue.js';

/** Settings on PostgreSQL, one row per key, shared by every replica. Sets of a key commit in call order: the last one wins. */
export class PgSettingsStore implements SettingsStore {
  private readonly writes = new WriteQueue();

  constructor(private readonly db: PgDatabase) {}

  async get(key: string): Promise<string | null> {
    const { rows } = await this.db.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [key]);
    return rows[0]?.value ?? null;
  }

  async set(key: string, value: string, at: string): Promise<void> {
    await this.writes.run(key, () => this.db.query(`INSERT INTO settings (key, value, updated_at) VALUES ($1, $2, $3)
      ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`, [key, value, at]));
  }

  /** Resolves once the writes queued so far have settled (the storage is closing). */
  drain(): Promise<void> {
    return this.writes.drain();
  }
}
