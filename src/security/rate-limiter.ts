/**
 * Per-key sliding-window rate limiter (60 s window by default).
 *
 * The window is kept as one counter per second (a ring of `windowSeconds` slots) plus a running
 * total, so memory per key is fixed whatever the configured limit, a hit costs O(1), and the count
 * is exact to one-second resolution. At most `maxKeys` keys are tracked; past that the least
 * recently seen key is evicted (a Map keeps insertion order and an active key is re-inserted once
 * per second), so a flood of distinct addresses cannot grow memory.
 */
export interface RateDecision {
  allowed: boolean;
  /** Seconds until a request would be allowed again (only when refused). */
  retryAfterSeconds: number;
}

interface Window {
  counts: Uint32Array;
  total: number;
  /** The latest second the ring has been advanced to. */
  lastSecond: number;
}

const ALLOWED: RateDecision = Object.freeze({ allowed: true, retryAfterSeconds: 0 });

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
    const win = this.touch(key, nowSec);
    this.advance(win, nowSec);
    if (win.total >= this.limit) {
      return { allowed: false, retryAfterSeconds: this.secondsUntilFree(win, nowSec) };
    }
    const slot = nowSec % this.windowSeconds;
    win.counts[slot] = (win.counts[slot] as number) + 1;
    win.total++;
    return ALLOWED;
  }

  private touch(key: string, nowSec: number): Window {
    const existing = this.windows.get(key);
    if (existing) {
      if (existing.lastSecond !== nowSec) {
        this.windows.delete(key);
        this.windows.set(key, existing);
      }
      return existing;
    }
    if (this.windows.size >= this.maxKeys) {
      const oldest = this.windows.keys().next().value;
      if (oldest !== undefined) this.windows.delete(oldest);
    }
    const created: Window = { counts: new Uint32Array(this.windowSeconds), total: 0, lastSecond: nowSec };
    this.windows.set(key, created);
    return created;
  }

  /** Zero the slots of the seconds that have left the window since the last hit. */
  private advance(win: Window, nowSec: number): void {
    if (nowSec <= win.lastSecond) return;
    const steps = Math.min(nowSec - win.lastSecond, this.windowSeconds);
    for (let i = 1; i <= steps; i++) {
      const slot = (win.lastSecond + i) % this.windowSeconds;
      win.total -= win.counts[slot] as number;
      win.counts[slot] = 0;
    }
    win.lastSecond = nowSec;
  }

  /** Walk the live slots oldest first until enough requests have left the window. */
  private secondsUntilFree(win: Window, nowSec: number): number {
    let excess = win.total - this.limit + 1;
    for (let age = this.windowSeconds - 1; age >= 0; age--) {
      const sec = nowSec - age;
      excess -= win.counts[sec % this.windowSeconds] as number;
      if (excess <= 0) return sec + this.windowSeconds - nowSec;
    }
    return this.windowSeconds;
  }
}
