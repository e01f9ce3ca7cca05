import { closeSync, openSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { MIGRATIONS, type Migration } from './migrations/index.js';
import { openReadOnly, type Connection } from './read-only.js';

export type SqliteDatabase = BetterSqlite3.Database;

export interface DatabaseOptions {
  /**
   * Read without writing anything (`agentd doctor`, `agentd audit verify`, also on a read-only home):
   * no file is created, no migration applied, no checkpoint run; writes fail.
   */
  readonly?: boolean;
}

/**
 * The one SQLite file of a home folder. WAL lets readers run beside the writer; every write is a
 * transaction that has committed before the caller returns, so a process killed right after an
 * acknowledged write loses nothing. `synchronous=NORMAL` is the WAL setting that survives a process
 * crash (kill -9) at full speed; only an OS crash or power cut can lose the last commits.
 */
export class Database {
  readonly db: SqliteDatabase;
  readonly readonly: boolean;
  private readonly closeConnection: () => void;

  constructor(readonly path: string, migrations: readonly Migration[] = MIGRATIONS, options: DatabaseOptions = {}) {
    this.readonly = options.readonly ?? false;
    const connection = this.readonly ? openReadOnly(path) : openWritable(path);
    this.db = connection.db;
    this.closeConnection = connection.close;
    try {
      this.db.pragma('busy_timeout = 5000');
      if (this.readonly) requireMigrations(this.db, migrations);
      else {
        applyMigrations(this.db, migrations);
        keepSubJournalInMemory(this.db);
      }
    } catch (error) {
      connection.close();
      throw error;
    }
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
      if (!this.readonly) this.db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      this.closeConnection();
    }
  }
}

function openWritable(path: string): Connection {
  // Created owner-only before SQLite opens it; the -wal and -shm files inherit this mode.
  if (path !== ':memory:') closeSync(openSync(path, 'a', 0o600));
  const db = new BetterSqlite3(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  // Deleted conversation text and audit data must not linger in free pages of the file.
  db.pragma('secure_delete = ON');
  return { db, close: () => db.close() };
}

/**
 * The unit of work runs each write in a savepoint, and SQLite keeps the pages a savepoint may have
 * to restore in a sub-journal: in memory up to 64 KiB, past that in a temporary file for the rest
 * of the transaction. One write touching many pages (a B-tree split) sent every later write of its
 * batch through that file, a write per page: 10 of the 60 µs of CPU the webhook intake spent storing a message (measured), and
 * copies of message text and audit data in the temporary folder. In memory the sub-journal stays
 * bounded by the largest single write. Set after the migrations: a rebuild of a large table may
 * need temporary space beyond what memory should hold.
 */
function keepSubJournalInMemory(db: SqliteDatabase): void {
  db.pragma('temp_store = MEMORY');
}

function appliedVersions(db: SqliteDatabase): Set<number> {
  return new Set((db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version));
}

/** A database opened read-only cannot be migrated: one that needs it is refused, saying so. */
function requireMigrations(db: SqliteDatabase, migrations: readonly Migration[]): void {
  let applied: Set<number>;
  try {
    applied = appliedVersions(db);
  } catch (error) {
    throw new Error(`it is not an agentd database (${(error as Error).message})`);
  }
  refuseNewerSchema(applied, migrations);
  const missing = migrations.filter((m) => !applied.has(m.version)).map((m) => m.version);
  if (missing.length > 0) {
    throw new Error(`it was written by an older agentd (it lacks schema version ${missing.join(', ')}); start agentd serve on it once to upgrade it`);
  }
}

/**
 * A database migrated by a newer agentd has tables or columns this code was not written for (and a
 * downgrade would write rows the newer code cannot read): it is refused, never used.
 */
function refuseNewerSchema(applied: ReadonlySet<number>, migrations: readonly Migration[]): void {
  const latest = Math.max(0, ...migrations.map((m) => m.version));
  const newest = Math.max(0, ...applied);
  if (newest <= latest) return;
  throw new Error(
    `it was migrated by a newer agentd (schema version ${newest}; this agentd knows up to ${latest}): ` +
    'upgrade agentd, or restore a backup taken before the upgrade',
  );
}

function applyMigrations(db: SqliteDatabase, migrations: readonly Migration[]): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  const applied = appliedVersions(db);
  refuseNewerSchema(applied, migrations);
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
