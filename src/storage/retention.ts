export const RETENTION_INTERVAL_MS = 24 * 60 * 60 * 1000;

/** The part of the service logger retention uses (counts only: no stored content is ever logged). */
export interface RetentionLog {
  info(message: string): void;
  error(message: string): void;
}

/** One table that only grows, and how to prune it. */
export interface RetentionRule {
  /** What is pruned, for the log ("turns", "runs", …). */
  what: string;
  /** Age limit; 0 or less keeps everything (the rule never runs). */
  days: number;
  /** How the log says what went, when not "older than `days` days" (records pruned by their own expiry). */
  age?: string;
  /** Deletes what is older than `days`, in slices that stop when `signal` aborts; resolves with how many went. */
  prune(days: number, signal: AbortSignal): Promise<number>;
}

export interface RetentionOptions {
  /** Time between cleanups (tests shorten it). */
  intervalMs?: number;
}

/**
 * Age-based retention: one pass over every rule now, then one every 24 hours. A pass runs the
 * rules one after another (each already yields between its slices), so retention never competes
 * with itself for the database. Returns a stop function that cancels the timer, halts a running
 * pass between two slices and resolves once it has, so the caller may close the store right after.
 */
export function startRetention(rules: readonly RetentionRule[], log?: RetentionLog, options: RetentionOptions = {}): () => Promise<void> {
  const active = rules.filter((rule) => rule.days > 0);
  if (active.length === 0) return async () => {};
  const controller = new AbortController();
  let running: Promise<void> | null = null;

  const pass = async (): Promise<void> => {
    for (const rule of active) {
      if (controller.signal.aborted) return;
      try {
        const removed = await rule.prune(rule.days, controller.signal);
        if (removed > 0) log?.info(`retention: removed ${removed} ${rule.what} ${rule.age ?? `older than ${rule.days} days`}`);
      } catch (error) {
        log?.error(`${rule.what} retention failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  };

  const run = (): void => {
    // A pass that is still going when the next is due simply continues; no second one starts.
    if (running || controller.signal.aborted) return;
    running = pass().finally(() => {
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
