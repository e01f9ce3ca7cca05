import { access, constants, statfs } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Logger } from '../../log.js';
import type { SessionStore } from '../ports/sessions.js';
import { InMemorySessionStore } from '../shared/memory-session-store.js';
import type { WebSessionStore } from '../ports/web-sessions.js';
import type { SessionStoreOptions, Storage, WebSessionStoreOptions } from '../ports/storage.js';
import { type SqliteHealth, sqliteHealth, type SqliteFacts } from './health.js';
import { SqliteAuditStore } from './audit-store.js';
import { startCheckpointer, type Checkpointer } from './checkpointer.js';
import { SqliteCostStore } from './cost-store.js';
import { SqliteInboxStore } from './inbox-store.js';
import { Database } from './database.js';
import { SqliteJobStore } from './job-store.js';
import { SqliteRunStore } from './run-store.js';
import { SqliteSettingsStore } from './settings-store.js';
import { SqliteApprovalStore } from './approval-store.js';
import { SqliteTurnStore, type SqliteTurnStoreOptions } from './turn-store.js';
import { SqliteUnitOfWork } from './unit-of-work.js';
import { SqliteWebSessionStore } from './web-session-store.js';
import { writeFault } from './write-failure.js';
import { InMemorySessionClaimStore } from '../shared/memory-session-claim-store.js';

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
  log?: Logger;
  /** Open an existing database for reading only (see `DatabaseOptions.readonly`). */
  readonly?: boolean;
}

/**
 * How long after the open the checkpoint worker starts. Booting its thread costs some 70 ms of CPU,
 * which a start on two busy cores paid before it could listen; until the worker is up the main
 * connection checkpoints on its own (SQLite's default), so the WAL stays bounded meanwhile.
 */
const CHECKPOINTER_START_DELAY_MS = 1000;

/** The embedded backend: every store on one SQLite file, sharing one unit of work. */
export class SqliteStorage implements Storage {
  /** One process owns the file (the home lock), so it is always the same owner, also after a restart. */
  readonly owner = 'local';
  readonly database: Database;
  readonly uow: SqliteUnitOfWork;
  readonly turns: SqliteTurnStore;
  readonly runs: SqliteRunStore;
  readonly costs: SqliteCostStore;
  readonly audit: SqliteAuditStore;
  readonly inbox: SqliteInboxStore;
  readonly jobs: SqliteJobStore;
  readonly settings: SqliteSettingsStore;
  readonly approvals: SqliteApprovalStore;
  /** In this process: the file's one process keeps one run per session without a write per run. */
  readonly sessionClaims: InMemorySessionClaimStore = new InMemorySessionClaimStore(this.owner);
  private checkpointer: Checkpointer | null = null;
  private checkpointerStart: NodeJS.Timeout | null = null;
  private readonly log: Logger | undefined;
  private closing: Promise<void> | null = null;

  constructor(path: string, options: SqliteStorageOptions = {}) {
    this.log = options.log;
    this.database = new Database(path, undefined, { readonly: options.readonly });
    try {
      this.uow = new SqliteUnitOfWork(this.database, options.now);
      this.turns = new SqliteTurnStore(this.database, this.uow, { ...options.turns, now: options.now });
      this.runs = new SqliteRunStore(this.database, this.uow);
      this.costs = new SqliteCostStore(this.database, this.uow);
      this.audit = new SqliteAuditStore(this.database, this.uow, { search: { background: options.auditIndexing ?? false, log: options.log } });
      this.inbox = new SqliteInboxStore(this.database, this.uow, this.audit);
      this.jobs = new SqliteJobStore(this.database, this.uow);
      this.settings = new SqliteSettingsStore(this.database, this.uow);
      this.approvals = new SqliteApprovalStore(this.database, this.uow, this.owner);
      // Scheduled last: nothing after it can fail, so a failed open never leaves a worker to come.
      if (options.checkpointer) {
        this.checkpointerStart = setTimeout(() => {
          this.checkpointerStart = null;
          this.checkpointer = startCheckpointer(this.database, { log: options.log, commits: this.uow });
        }, CHECKPOINTER_START_DELAY_MS);
        this.checkpointerStart.unref();
      }
    } catch (error) {
      this.database.close();
      throw error;
    }
  }

  async health(options: { checkIntegrity?: boolean } = {}): Promise<SqliteHealth> {
    const inMemory = this.database.path === ':memory:';
    const folder = dirname(this.database.path);
    return sqliteHealth({
      location: this.database.path,
      sizeBytes: this.database.sizeBytes,
      journalMode: this.database.journalMode,
      integrity: options.checkIntegrity ? this.database.quickCheck() : null,
      space: inMemory ? null : await filesystemSpace(folder),
      writable: inMemory || (await access(folder, constants.W_OK).then(() => true, () => false)),
      lastWriteFailure: this.uow.lastFailure,
    });
  }

  sessionStore(options: SessionStoreOptions): SessionStore {
    return new InMemorySessionStore(options);
  }

  /** On the file: a console login survives a restart (docs/api.md#browser-sessions-and-csrf). */
  webSessionStore(options: WebSessionStoreOptions): WebSessionStore {
    return new SqliteWebSessionStore(this.database, this.uow, options);
  }

  /** The file is in this process: ready while it is open. */
  async ready(): Promise<boolean> {
    return this.database.open;
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      try {
        if (this.checkpointerStart) clearTimeout(this.checkpointerStart);
        this.uow.close();
        await this.audit.close();
        await this.checkpointer?.stop();
      } finally {
        this.closeDatabase();
      }
    })();
    return this.closing;
  }

  /**
   * Closes the file. A storage fault (a full disk) only keeps the WAL from being folded into it,
   * which loses nothing and is no reason to fail the shutdown.
   */
  private closeDatabase(): void {
    try {
      this.database.close();
    } catch (error) {
      const fault = writeFault(error, this.database.path);
      if (!fault) throw error;
      this.log?.warn(`the WAL could not be folded into the database file at close (${fault.reason}); its commits are kept and the next start folds them in`);
    }
  }
}

/** Free (for this user) and total bytes of the filesystem holding `folder`; null when unreadable. */
async function filesystemSpace(folder: string): Promise<SqliteFacts['space']> {
  try {
    const stats = await statfs(folder);
    return { freeBytes: stats.bavail * stats.bsize, totalBytes: stats.blocks * stats.bsize };
  } catch {
    return null;
  }
}

export { Database } from './database.js';
