import type { Database } from './database.js';

/** Most writes queued before a commit is forced. */
const MAX_QUEUED = 10_000;

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
 */
export class SqliteUnitOfWork {
  private queue: Pending[] = [];
  private scheduled = false;
  private closed = false;
  private readonly rollbackListeners: (() => void)[] = [];
  private readonly commitListeners: (() => void)[] = [];
  /** Built once: a transaction wrapper per call costs. */
  private readonly savepoint: (write: () => unknown) => unknown;
  private readonly commit: (batch: Pending[]) => void;

  constructor(private readonly database: Database) {
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
          this.flush();
        });
      }
    });
  }

  /**
   * Called when a batch's commit fails, before any of its writes' promises reject: a store that keeps
   * state derived from its queued writes (the audit chain head) drops it here.
   */
  onRollback(listener: () => void): void {
    this.rollbackListeners.push(listener);
  }

  /**
   * Called inside each batch's transaction after its writes: a store that sums what its writes
   * did (the audit counts) writes the sums here, once per batch instead of once per write. If the
   * listener throws, the whole batch rolls back.
   */
  onBeforeCommit(listener: () => void): void {
    this.commitListeners.push(listener);
  }

  /** Commits everything queued now. */
  flush(): void {
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    if (!this.database.open) {
      const error = new Error('the database is closed');
      for (const pending of batch) pending.reject(error);
      return;
    }
    try {
      this.commit(batch);
    } catch (error) {
      for (const listener of this.rollbackListeners) listener();
      for (const pending of batch) pending.reject(pending.outcome?.ok === false ? pending.outcome.error : error);
      return;
    }
    for (const pending of batch) {
      const outcome = pending.outcome!;
      if (outcome.ok) pending.resolve(outcome.value);
      else pending.reject(outcome.error);
    }
  }

  /** Commits what is queued and from then on commits each write at once (shutdown). */
  close(): void {
    this.flush();
    this.closed = true;
  }
}
