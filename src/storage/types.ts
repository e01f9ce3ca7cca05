import type { ApprovalStore } from '../approvals/types.js';
import type { CostStore, RunStore, SessionClaimStore, SessionStore } from '../agent/stores.js';
import type { AuditStore } from '../audit/types.js';
import type { WebSessionStore } from '../http/web-sessions.js';
import type { InboxStore } from '../channels/inbox/types.js';
import type { TurnStore } from '../memory/types.js';
import type { JobStore } from '../scheduler/types.js';

/** What the doctor reports about the store behind the service. */
export type StorageHealth = SqliteHealth | PostgresHealth;

/** The embedded backend: one SQLite file in the home folder. */
export interface SqliteHealth {
  backend: 'sqlite';
  /** Where the data lives (a file path; never a URL with credentials). */
  location: string;
  sizeBytes: number;
  /** SQLite journal mode (`wal` expected). */
  journalMode: string;
  /** "ok" or the first problem an integrity check found; null when not checked. */
  integrity: string | null;
  /** Space on the filesystem holding the data; null when it cannot be read (or the data is in memory). */
  space: { freeBytes: number; totalBytes: number } | null;
  /** Whether the folder holding the data can be written (false on a read-only mount or snapshot). */
  writable: boolean;
  /** The last write that failed because of the storage (full disk, I/O), until a write commits again. */
  lastWriteFailure: { at: string; reason: string } | null;
}

/** The shared backend: a PostgreSQL database several replicas use. */
export interface PostgresHealth {
  backend: 'postgres';
  /** The server and database as a URL without its password. */
  location: string;
  /** Whether a query could be run just now; when not, the fields below are unknown (0 / null). */
  reachable: boolean;
  /** Why it is not reachable (the driver's message; it names no password), or null. */
  problem: string | null;
  /** `server_version` of the server, such as `15.4`. */
  version: string | null;
  sizeBytes: number;
  /** The schema version the database has and the latest one this build knows. */
  migrations: { applied: number; latest: number } | null;
}

/** What the app hands a session store: the bound, the clock and what only the running process knows. */
export interface SessionStoreOptions {
  /** Most sessions kept; past it the least recently used idle session is ended. */
  max?: number;
  now?: () => number;
  /** Whether a session has a run or chat in flight in this process (such a session is never evicted here). */
  isBusy?: (sessionId: string) => boolean;
  /** Called for every session this process ends, deleted or evicted (to cancel its work, forget approvals). */
  onEnd?: (sessionId: string) => void;
}

/** What the app hands a browser session store. */
export interface WebSessionStoreOptions {
  /** Lifetime of a session from login (absolute). */
  ttlSeconds: number;
  /** Upper bound on live sessions; the oldest is evicted first. */
  maxSessions?: number;
  now?: () => number;
}

/** Named values an operator sets while the service runs, kept across restarts. */
export interface SettingsStore {
  /** The value, or null when it was never set. */
  get(key: string): Promise<string | null>;
  /** Stores the value (resolves after the commit); `at` is when, ISO 8601. */
  set(key: string, value: string, at: string): Promise<void>;
}

/**
 * One backend's stores, built by `app.ts` and injected into the domain: nothing outside
 * `src/storage/` sees a database handle.
 */
export interface Storage {
  readonly turns: TurnStore;
  readonly runs: RunStore;
  readonly costs: CostStore;
  readonly audit: AuditStore;
  /**
   * This process in the store's claims (webhook messages) and run ownership: the replica's id on a
   * database several replicas share; on SQLite, whose file one process owns, a fixed name.
   */
  readonly owner: string;
  /** Which run or chat holds each session (one in flight per session across replicas). */
  readonly sessionClaims: SessionClaimStore;
  /** Channel messages acknowledged and not yet run (the webhook's durable intake). */
  readonly inbox: InboxStore;
  /** Scheduled jobs and the state of their fires. */
  readonly jobs: JobStore;
  /** Settings an operator changes at run time (the default provider). */
  readonly settings: SettingsStore;
  /** Requests waiting for an operator's decision, and the decisions taken. */
  readonly approvals: ApprovalStore;
  /**
   * The API sessions: in memory on SQLite (a restart forgets them, docs/resources.md#api-sessions), in the
   * database on PostgreSQL (every replica sees them; they outlive a restart).
   */
  sessionStore(options: SessionStoreOptions): SessionStore;
  /** The console's browser sessions: in memory on SQLite, in the database on PostgreSQL (a login holds on every replica). */
  webSessionStore(options: WebSessionStoreOptions): WebSessionStore;
  /**
   * Size and state of the store. The integrity check reads every page (seconds on a large file),
   * so only `agentd doctor` asks for it, not the polled diagnostics endpoint.
   */
  health(options?: { checkIntegrity?: boolean }): Promise<StorageHealth>;
  /** Whether requests can be served now (the readiness endpoint): the database answers. Never throws. */
  ready(): Promise<boolean>;
  /** Commits what is queued and closes; safe to call twice. */
  close(): Promise<void>;
}
