import type { StorageHealth, Storage } from '../types.js';
import { SqliteAuditStore } from './audit-store.js';
import { startCheckpointer, type Checkpointer } from './checkpointer.js';
import { SqliteCostStore } from './cost-store.js';
import { SqliteInboxStore } from './inbox-store.js';
import { Database } from './database.js';
import { SqliteRunStore } from './run-store.js';
import { SqliteTurnStore, type SqliteTurnStoreOptions } from './turn-store.js';
import { SqliteUnitOfWork } from './unit-of-work.js';

export interface SqliteStorageOptions {
  /** Clock for default timestamps and age cleanup (tests). */
  now?: () => number;
  /** Turn store knobs (benchmarks and tests). */
  turns?: Omit<SqliteTurnStoreOptions, 'now'>;
  /** Checkpoint the WAL from a worker thread (the service does; one-shot commands need not). */
  checkpointer?: boolean;
  /**
   * Index new audit events for `q` in the background (the service does; one-shot commands need
   * not: queries read what the index lacks).
   */
  auditIndexing?: boolean;
  log?: (message: string) => void;
}

/** The embedded backend: every store on one SQLite file, sharing one unit of work. */
export class SqliteStorage implements Storage {
  readonly database: Database;
  readonly uow: SqliteUnitOfWork;
  readonly turns: SqliteTurnStore;
  readonly runs: SqliteRunStore;
  readonly costs: SqliteCostStore;
  readonly audit: SqliteAuditStore;
  readonly inbox: SqliteInboxStore;
  private readonly checkpointer: Checkpointer | null;
  private closing: Promise<void> | null = null;

  constructor(path: string, options: SqliteStorageOptions = {}) {
    this.database = new Database(path);
    try {
      this.uow = new SqliteUnitOfWork(this.database);
      this.turns = new SqliteTurnStore(this.database, this.uow, { ...options.turns, now: options.now });
      this.runs = new SqliteRunStore(this.database, this.uow);
      this.costs = new SqliteCostStore(this.database, this.uow);
      this.audit = new SqliteAuditStore(this.database, this.uow, { search: { background: options.auditIndexing ?? false, log: options.log } });
      this.inbox = new SqliteInboxStore(this.database, this.uow);
      // Started last: nothing after it can fail, so a failed open never leaves the worker running.
      this.checkpointer = options.checkpointer ? startCheckpointer(this.database, { log: options.log }) : null;
    } catch (error) {
      this.database.close();
      throw error;
    }
  }

  async health(options: { checkIntegrity?: boolean } = {}): Promise<StorageHealth> {
    return {
      backend: 'sqlite',
      location: this.database.path,
      sizeBytes: this.database.sizeBytes,
      journalMode: this.database.journalMode,
      integrity: options.checkIntegrity ? this.database.quickCheck() : null,
    };
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      try {
        this.uow.close();
        this.audit.close();
        await this.checkpointer?.stop();
      } finally {
        this.database.close();
      }
    })();
    return this.closing;
  }
}

export { Database } from './database.js';
