import type { ChainVerdict } from '../storage/ports/audit.js';

/** The chain's state as the diagnostics report it. */
export interface ChainReport {
  /** The latest finished verification; null while the first one runs. */
  verdict: ChainVerdict | null;
  /** When that verification finished (ms since the epoch). */
  checkedAt: number | null;
}

export interface ChainStatusOptions {
  now?: () => number;
  /** A verdict older than this is refreshed in the background when asked for (default 1 hour). */
  maxAgeMs?: number;
  /** How long a caller waits for a verification in progress before taking the last verdict (default 1 s). */
  waitMs?: number;
}

/**
 * The audit chain's verification for the polled diagnostics: walking a million events takes about
 * half a minute of CPU, far too much to repeat every 15 s or to keep a request waiting for. Each verdict is kept and
 * refreshed in the background once it is old; a caller waits a moment for a verification in
 * progress (a small log is verified at once) and otherwise gets the last verdict.
 */
export class ChainStatus {
  private last: ChainReport = { verdict: null, checkedAt: null };
  private running: Promise<void> | null = null;
  private readonly now: () => number;

  constructor(
    private readonly verify: () => Promise<ChainVerdict>,
    private readonly options: ChainStatusOptions = {},
  ) {
    this.now = options.now ?? Date.now;
  }

  async current(): Promise<ChainReport> {
    const { checkedAt } = this.last;
    if (this.running === null && (checkedAt === null || this.now() - checkedAt >= (this.options.maxAgeMs ?? 3_600_000))) {
      this.running = this.verify().then(
        (verdict) => {
          this.last = { verdict, checkedAt: this.now() };
        },
        // A verification that could not run (the database closing) leaves the last verdict; the next caller retries.
        () => undefined,
      ).finally(() => {
        this.running = null;
      });
    }
    if (this.running !== null) {
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.options.waitMs ?? 1000);
        timer.unref();
      });
      await Promise.race([this.running, waited]);
      clearTimeout(timer);
    }
    return this.last;
  }
}
