import type { Database } from '../storage/database.js';

/** Where the runtime's writes go: at once, or batched. */
export interface Writes {
  /**
   * Queue `write`; `then` runs after it has been committed (or has failed, which is logged). `key`
   * names what the write touches (a session, a run) for `flushFor`.
   */
  defer(write: () => void, then?: () => void, key?: string): void;
  /** Commit everything queued now. */
  flush(): void;
  /** Commit now if a queued write touches `key` (a reader of that session or run calls this first). */
  flushFor(key: string): void;
}

/** Writes that happen at once (unit tests, tools outside the runtime). */
export const immediateWrites: Writes = {
  defer(write, then) {
    write();
    then?.();
  },
  flush() {},
  flushFor() {},
};

/** Most writes queued before a flush is forced. */
const MAX_QUEUED = 10_000;

/**
 * Batches the runtime's small writes (run events, costs, turns, tool-call audit events) into one
 * transaction per turn of the event loop. A run makes a dozen writes and each commit costs more
 * than the insert itself, so under load this turns many commits per run into a few per tick
 * across all runs (measured in bench/agent.ts).
 *
 * Nothing is acknowledged before it is committed: `then` callbacks — which send events to SSE
 * viewers — run after the commit, every reader flushes first, and chat flushes before it answers.
 * Each write runs in its own savepoint, so one failing write is logged and the others still commit.
 */
export class WriteBatch implements Writes {
  private writes: (() => void)[] = [];
  private after: (() => void)[] = [];
  /** Keys of the queued writes (cleared by each flush: bounded by the queue). */
  private keys = new Set<string>();
  private scheduled = false;
  private closed = false;
  /** Each write in its own savepoint inside the batch's transaction; built once (a wrapper per call costs). */
  private readonly savepoint: (write: () => void) => void;
  private readonly commit: (writes: (() => void)[]) => void;

  constructor(
    database: Database,
    private readonly onError: (err: unknown) => void,
  ) {
    this.savepoint = database.db.transaction((write: () => void) => write());
    this.commit = database.db.transaction((writes: (() => void)[]) => {
      for (const write of writes) this.guard(() => this.savepoint(write));
    });
  }

  defer(write: () => void, then?: () => void, key?: string): void {
    if (this.closed) {
      this.guard(write);
      if (then) this.guard(then);
      return;
    }
    this.writes.push(write);
    if (then) this.after.push(then);
    if (key !== undefined) this.keys.add(key);
    if (this.writes.length >= MAX_QUEUED) {
      this.flush();
    } else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.flush();
      });
    }
  }

  flush(): void {
    if (this.writes.length === 0 && this.after.length === 0) return;
    const writes = this.writes;
    const after = this.after;
    this.writes = [];
    this.after = [];
    this.keys.clear();
    if (writes.length > 0) {
      try {
        this.commit(writes);
      } catch (err) {
        this.onError(err);
      }
    }
    for (const fn of after) this.guard(fn);
  }

  flushFor(key: string): void {
    if (this.keys.has(key)) this.flush();
  }

  /** Flushes and from then on writes at once (shutdown: nothing may wait for a tick that never comes). */
  close(): void {
    this.flush();
    this.closed = true;
  }

  private guard(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.onError(err);
    }
  }
}
