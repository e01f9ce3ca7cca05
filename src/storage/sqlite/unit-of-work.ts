import type { Database } from './database.js';
import { writeFault } from './write-failure.js';

/** Most writes queued before a commit is forced. */
const MAX_QUEUED = 10_000;

/**
 * How long a write queued with `runBatched` waits, at most, for another write to share its commit.
 * One commit costs a loopback request's worth of CPU; a few milliseconds gather the audit events
 * of sequential outbound requests into one.
 */
export const BATCHED_WITHIN_MS = 5;

/** The last write that failed because of the storage (full, I/O, read-only), for diagnostics. */
export interface WriteFailure {
  /** ISO 8601 time of the failure. */
  at: string;
  reason: string;
}

interface Pending {
  write: () => unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  outcome: { ok: true; value: unknown } | { ok: false; error: unknown } | null;
}

/**
 * SQLite's unit of work: the stores' small writes (run events, costs, turns, audit events) are
 * queued and committed together in one transaction per turn of the event loop. A run makes a dozen
 * writes and each commit costs more than the insert itself, so under load this turns many commits
 * per run into a few per tick across all runs (measured in bench/agent.ts).
 *
 * The promise of a write settles only after the commit: it resolves with the write's result when
 * the transaction committed, and rejects when the write itself failed or the commit did. So whatever
 * a caller does after `await` — answer 2xx, send an SSE frame, advance a hash chain — happens only
 * for data that is on disk. Each write runs in its own savepoint, so one failing write is rolled
 * back alone and the others still commit.
 *
 * A write that fails because of the storage rejects with a `StorageFullError` when the disk is full
 * (the driver's error otherwise), and is kept as `lastFailure` until a write commits in a batch
 * without such a failure: the diagnostics report it as an error exactly while writes are failing.
 */
export class SqliteUnitOfWork {
  private queue: Pending[] = [];
  private scheduled = false;
  /** The commit a batched write waits for when no other write comes along. */
  private batchTimer: NodeJS.Timeout | null = null;
  private closed = false;
  /** Commits held back for the WAL's quiet pass (see checkpointer.ts); writes queue meanwhile. */
  private paused = false;
  private readonly rollbackListeners: (() => void)[] = [];
  private failure: WriteFailure | null = null;
  private readonly commitListeners: (() => void)[] = [];
  /** Built once: a transaction wrapper per call costs. */
  private readonly savepoint: (write: () => unknown) => unknown;
  private readonly commit: (batch: Pending[]) => void;

  constructor(
    private readonly database: Database,
    private readonly now: () => number = Date.now,
  ) {
    this.savepoint = database.db.transaction((write: () => unknown) => write());
    this.commit = database.db.transaction((batch: Pending[]) => {
      for (const pending of batch) {
        try {
          pending.outcome = { ok: true, value: this.savepoint(pending.write) };
        } catch (error) {
          pending.outcome = { ok: false, error };
        }
      }
      for (const listener of this.commitListeners) listener();
    });
  }

  /**
   * Queues `write` (synchronous SQL on this database) and settles once it has been committed. After
   * `close()` the write runs and commits at once.
   */
  run<T>(write: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ write, resolve: resolve as (value: unknown) => void, reject, outcome: null });
      if (this.closed || this.queue.length >= MAX_QUEUED) {
        this.flush();
      } else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          if (!this.paused) this.flush();
        });
      }
    });
  }

  /**
   * Queues `write` like `run` without starting a commit for it: it commits with the next batch any
   * other write starts, or `BATCHED_WITHIN_MS` later. The queue keeps its order, so a write queued
   * after this one never commits before it: whatever is acknowledged afterwards implies it is on
   * disk. For records nothing waits on (the outbound gateway's audit events).
   */
  runBatched<T>(write: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ write, resolve: resolve as (value: unknown) => void, reject, outcome: null });
      if (this.closed || this.queue.length >= MAX_QUEUED) this.flush();
      else this.batchTimer ??= setTimeout(() => {
        this.batchTimer = null;
        if (!this.paused) this.flush();
      }, BATCHED_WITHIN_MS);
    });
  }

  /**
   * Called when a batch's commit fails, before any of its writes' promises reject: a store that keeps
   * state derived from its queued writes (the audit chain head) drops it here.
   */
  onRollback(listener: () => void): void {
    this.rollbackListeners.push(listener);
  }

  /** The last write that failed because of the storage, or null once a batch has committed cleanly. */
  get lastFailure(): WriteFailure | null {
    return this.failure;
  }

  /**
   * Called inside each batch's transaction after its writes: a store that sums what its writes
   * did (the audit counts) writes the sums here, once per batch instead of once per write. If the
   * listener throws, the whole batch rolls back.
   */
  onBeforeCommit(listener: () => void): void {
    this.commitListeners.push(listener);
  }

  /**
   * Holds commits back until `resume`: writes queue and their promises wait. Only a full queue or
   * closing commits meanwhile (the pause then misses its purpose once, nothing else).
   */
  pause(): void {
    this.paused = true;
  }

  /** Commits what queued during the pause, and from then on as before. */
  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.flush();
  }

  /** Commits everything queued now. */
  flush(): void {
    if (this.batchTimer !== null) {
      clearTimeout(this.batchTimer);
      this.batchTimer = null;
    }
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    if (!this.database.open) {
      const error = new Error('the database is closed');
      for (const pending of batch) pending.reject(error);
      return;
    }
    let faulted = false;
    const reject = (pending: Pending, error: unknown) => {
      const fault = writeFault(error, this.database.path);
      if (fault) {
        faulted = true;
        this.failure = { at: new Date(this.now()).toISOString(), reason: fault.reason };
      }
      pending.reject(fault ? fault.error : error);
    };
    try {
      this.commit(batch);
    } catch (error) {
      for (const listener of this.rollbackListeners) listener();
      for (const pending of batch) reject(pending, pending.outcome?.ok === false ? pending.outcome.error : error);
      return;
    }
    for (const pending of batch) {
      const outcome = pending.outcome!;
      if (outcome.ok) pending.resolve(outcome.value);
      else reject(pending, outcome.error);
    }
    // A write that landed shows the storage takes writes again.
    if (!faulted && batch.some((pending) => pending.outcome?.ok)) this.failure = null;
  }

  /** Commits what is queued and from then on commits each write at once (shutdown). */
  close(): void {
    this.flush();
    this.closed = true;
  }
}
