import type { ApprovalStore } from './approvals.js';
import type { CostStore } from './costs.js';
import type { RunStore } from './runs.js';
import type { SessionClaimStore, SessionStore } from './sessions.js';
import type { AuditStore } from './audit.js';
import type { StorageHealth } from './health.js';
import type { WebSessionStore } from './web-sessions.js';
import type { InboxStore } from './inbox.js';
import type { TurnStore } from './turns.js';
import type { JobStore } from './jobs.js';
import type { SettingsStore } from './settings.js';

/*
 * The ports: the stores the domain sees, as interfaces (one file per area beside this one). Every
 * backend implements them and passes their contract suites (`src/storage/contract/`). A write's
 * promise settles once it has been committed.
 */

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
  /** The console's browser sessions: in the database on either backend (a login survives a restart, and holds on every replica). */
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
