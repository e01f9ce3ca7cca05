import { closeSync, openSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { MIGRATIONS, type Migration } from './migrations/index.js';

export type SqliteDatabase = BetterSqlite3.Database;

/**
 * The one SQLite file of a home folder. WAL lets readers run beside the writer; every write is a
 * transaction that has committed before the caller returns, so a process killed right after an
 * acknowledged write loses nothing. `synchronous=NORMAL` is the WAL setting that survives a process
 * crash (kill -9) at full speed; only an OS crash or power cut can lose the last commits.
 */
export class Database {
  readonly db: SqliteDatabase;

  constructor(readonly path: string, migrations: readonly Migration[] = MIGRATIONS) {
    // Created owner-only before SQLite opens it; the -wal and -shm files inherit this mode.
    if (path !== ':memory:') closeSync(openSync(path, 'a', 0o600));
    this.db = new BetterSqlite3(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('foreign_keys = ON');
    // Deleted conversation text and audit data must not linger in free pages of the file.
    this.db.pragma('secure_delete = ON');
    this.db.pragma('busy_timeout = 5000');
    applyMigrations(this.db, migrations);
  }

  /** Run `fn` in one transaction (nested calls become savepoints). */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  /**
   * Copies the WAL into the main file and truncates it to zero bytes, so that page versions still
   * holding deleted text are gone from disk. Waits (busy timeout) for the checkpoint worker; false
   * when a reader kept the WAL from being reset.
   */
  eraseWal(): boolean {
    if (this.path === ':memory:' || !this.db.open) return true;
    const [result] = this.db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
    return result?.busy === 0;
  }

  /** Bytes of the database file and its WAL (diagnostics). */
  get sizeBytes(): number {
    const pages = this.db.pragma('page_count', { simple: true }) as number;
    const pageSize = this.db.pragma('page_size', { simple: true }) as number;
    return pages * pageSize;
  }

  /** `PRAGMA quick_check`: "ok" or the first problem found. */
  quickCheck(): string {
    return String(this.db.pragma('quick_check', { simple: true }));
  }

  get journalMode(): string {
    return String(this.db.pragma('journal_mode', { simple: true }));
  }

  get open(): boolean {
    return this.db.open;
  }

  close(): void {
    if (!this.db.open) return;
    try {
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      this.db.close();
    }
  }
}

function applyMigrations(db: SqliteDatabase, migrations: readonly Migration[]): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  const applied = new Set(
    (db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version),
  );
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  const sorted = [...migrations].sort((a, b) => a.version - b.version);
  for (const migration of sorted) {
    if (applied.has(migration.version)) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      record.run(migration.version, migration.name, new Date().toISOString());
    })();
  }
}
