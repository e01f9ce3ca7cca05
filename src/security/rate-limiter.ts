/**
 * Per-key sliding-window rate limiter (60 s window by default).
 *
 * The window is kept as one counter per second (a ring of `windowSeconds` slots), so memory per
 * key is fixed whatever the configured limit, and the count is exact to one-second resolution.
 * At most `maxKeys` keys are tracked; past that the least recently seen key is evicted (a Map
 * keeps insertion order, and every hit re-inserts its key), so a flood of distinct addresses
 * cannot grow memory.
 */
export interface RateDecision {
  allowed: boolean;
  /** Seconds until a request would be allowed again (only when refused). */
  retryAfterSeconds: number;
}

interface Window {
  counts: Uint32Array;
  /** Epoch second each slot was last written for; a slot older than the window counts 0. */
  seconds: Float64Array;
}

export class SlidingWindowRateLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly limit: number,
    private readonly maxKeys = 10_000,
    private readonly windowSeconds = 60,
    private readonly now: () => number = Date.now,
  ) {}

  get trackedKeys(): number {
    return this.windows.size;
  }

  hit(key: string): RateDecision {
    const nowSec = Math.floor(this.now() / 1000);
    let win = this.windows.get(key);
    if (win) {
      this.windows.delete(key);
    } else {
      win = { counts: new Uint32Array(this.windowSeconds), seconds: new Float64Array(this.windowSeconds).fill(-Infinity) };
      if (this.windows.size >= this.maxKeys) {
        const oldest = this.windows.keys().next().value;
        if (oldest !== undefined) this.windows.delete(oldest);
      }
    }
    this.windows.set(key, win);

    const oldestLive = nowSec - this.windowSeconds + 1;
    let total = 0;
    for (let i = 0; i < this.windowSeconds; i++) {
      if ((win.seconds[i] as number) >= oldestLive) total += win.counts[i] as number;
    }
    if (total >= this.limit) {
      return { allowed: false, retryAfterSeconds: this.secondsUntilFree(win, nowSec, total) };
    }
    const slot = nowSec % this.windowSeconds;
    if (win.seconds[slot] !== nowSec) {
      win.seconds[slot] = nowSec;
      win.counts[slot] = 0;
    }
    win.counts[slot] = (win.counts[slot] as number) + 1;
    return { allowed: true, retryAfterSeconds: 0 };
  }

  /** Walk the live slots oldest first until enough requests have left the window. */
  private secondsUntilFree(win: Window, nowSec: number, total: number): number {
    let excess = total - this.limit + 1;
    for (let age = this.windowSeconds - 1; age >= 0; age--) {
      const sec = nowSec - age;
      const slot = ((sec % this.windowSeconds) + this.windowSeconds) % this.windowSeconds;
      if (win.seconds[slot] === sec) {
        excess -= win.counts[slot] as number;
        if (excess <= 0) return sec + this.windowSeconds - nowSec;
      }
    }
    return this.windowSeconds;
  }
}
