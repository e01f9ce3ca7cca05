import type { TurnStore } from './types.js';

export const RETENTION_INTERVAL_MS = 24 * 60 * 60 * 1000;

/** The part of the service logger retention uses (counts only: turn content is never logged). */
export interface RetentionLog {
  info(message: string): void;
  error(message: string): void;
}

export interface RetentionOptions {
  /** Time between cleanups (tests shorten it). */
  intervalMs?: number;
}

/**
 * Age-based retention (`memory.retention_days`): one cleanup now, then one every 24 hours; pinned
 * turns survive (the store never deletes them). `days <= 0` means keep everything. Returns a stop
 * function that cancels the timer, halts a running cleanup between two batches and resolves once
 * it has, so the caller may close the database right after.
 */
export function startRetention(
  store: TurnStore,
  days: number,
  log?: RetentionLog,
  options: RetentionOptions = {},
): () => Promise<void> {
  if (!(days > 0)) return async () => {};
  const controller = new AbortController();
  let running: Promise<void> | null = null;

  const run = (): void => {
    // A cleanup that is still going when the next is due simply continues; no second one starts.
    if (running || controller.signal.aborted) return;
    running = store
      .cleanupOlderThan(days, { signal: controller.signal })
      .then((removed) => {
        if (removed > 0) log?.info(`memory retention: removed ${removed} turns older than ${days} days`);
      })
      .catch((error: unknown) => {
        log?.error(`memory retention failed: ${error instanceof Error ? error.message : String(error)}`);
      })
      .finally(() => {
        running = null;
      });
  };

  const timer = setInterval(run, options.intervalMs ?? RETENTION_INTERVAL_MS);
  // Retention alone must not keep the process alive.
  timer.unref();
  run();

  return async () => {
    clearInterval(timer);
    controller.abort();
    await running;
  };
}
