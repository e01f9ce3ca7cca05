import type { SessionStore } from '../ports/sessions.js';
import type { WebSessionStore } from '../ports/web-sessions.js';
import { postgresHealth, type PostgresHealth } from './health.js';
import type { SessionStoreOptions, Storage, WebSessionStoreOptions } from '../ports/storage.js';
import { PgAuditStore } from './audit-store.js';
import { PgCostStore } from './cost-store.js';
import { PgDatabase, type PgDatabaseOptions } from './database.js';
import { PgInboxStore } from './inbox-store.js';
import { PgJobStore } from './job-store.js';
import { migrate, migrationStatus } from './migrate.js';
import { PgRunStore } from './run-store.js';
import { PgSessionClaimStore } from './session-claim-store.js';
import { PgSessionStore } from './session-store.js';
import { PgSettingsStore } from './settings-store.js';
import { PgApprovalStore } from './approval-store.js';
import { PgTurnStore } from './turn-store.js';
import { PgWebSessionStore } from './web-session-store.js';

export interface PostgresStorageOptions extends PgDatabaseOptions {
  /** Clock for default timestamps and age cleanup (tests). */
  now?: () => number;
  /** This replica, stable across its restarts (`replicaIdOf`): the runs it creates are its own to recover. */
  replicaId?: string;
}

/**
 * The shared backend: every store on one PostgreSQL database, which several replicas of the
 * service may use at once. `open` migrates the schema first (safe when replicas start together).
 */
export class PostgresStorage implements Storage {
  readonly database: PgDatabase;
  readonly owner: string;
  readonly turns: PgTurnStore;
  readonly runs: PgRunStore;
  readonly costs: PgCostStore;
  readonly audit: PgAuditStore;
  readonly inbox: PgInboxStore;
  readonly jobs: PgJobStore;
  readonly settings: PgSettingsStore;
  readonly sessionClaims: PgSessionClaimStore;
  readonly approvals: PgApprovalStore;
  private closing: Promise<void> | null = null;

  /** Connects lazily: nothing is checked until the first query (see `open`). */
  constructor(url: string, options: PostgresStorageOptions = {}) {
    this.database = new PgDatabase(url, options);
    this.owner = options.replicaId ?? 'local';
    this.turns = new PgTurnStore(this.database, { now: options.now });
    this.runs = new PgRunStore(this.database, this.owner, options.now);
    this.costs = new PgCostStore(this.database);
    this.audit = new PgAuditStore(this.database);
    this.inbox = new PgInboxStore(this.database, this.audit);
    this.jobs = new PgJobStore(this.database);
    this.settings = new PgSettingsStore(this.database);
    this.sessionClaims = new PgSessionClaimStore(this.database, this.owner);
    this.approvals = new PgApprovalStore(this.database, this.owner);
  }

  /** A storage on a migrated database: applies what the schema lacks, then returns it. */
  static async open(url: string, options: PostgresStorageOptions = {}): Promise<PostgresStorage> {
    const storage = new PostgresStorage(url, options);
    try {
      await migrate(storage.database);
      return storage;
    } catch (error) {
      await storage.close();
      throw error;
    }
  }

  /** Never throws: an unreachable database is reported as such (the readiness probe and the doctor read it). */
  async health(): Promise<PostgresHealth> {
    const location = this.database.location;
    try {
      const { rows } = await this.database.query<{ version: string; size: number }>(
        `SELECT current_setting('server_version') AS version, pg_database_size(current_database()) AS size`);
      return postgresHealth({
        location, reachable: true, problem: null, version: rows[0]!.version, sizeBytes: rows[0]!.size,
        migrations: await migrationStatus(this.database),
      });
    } catch (error) {
      const cause = (error as Error).cause instanceof Error ? ((error as Error).cause as Error) : (error as Error);
      return postgresHealth({ location, reachable: false, problem: this.database.scrub(cause.message), version: null, sizeBytes: 0, migrations: null });
    }
  }

  sessionStore(options: SessionStoreOptions): SessionStore {
    return new PgSessionStore(this.database, options);
  }

  webSessionStore(options: WebSessionStoreOptions): WebSessionStore {
    return new PgWebSessionStore(this.database, options);
  }

  async ready(): Promise<boolean> {
    return this.database.query('SELECT 1').then(() => true, () => false);
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      // What was acknowledged is committed; what is queued gets its turn before the pool goes.
      await Promise.all([this.audit.drain(), this.turns.drain(), this.runs.drain(), this.settings.drain()]);
      await this.database.close();
    })();
    return this.closing;
  }
}
