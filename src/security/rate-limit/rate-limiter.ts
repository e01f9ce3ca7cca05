/**
 * Per-key sliding-window rate limiter (60 s window by default).
 *
 * The window is kept as one counter per second (a ring of `windowSeconds` slots) plus a running
 * total, so memory per key is fixed whatever the configured limit, a hit costs O(1), and the count
 * is exact to one-second resolution.
 *
 * At most `maxKeys` keys are tracked, so a flood of distinct addresses cannot grow memory. When a
 * new key needs room, a stale key goes first: one whose window holds no counted request any more
 * (it would start afresh anyway, so forgetting it changes nothing). A key whose window is still
 * live is forgotten only when no stale key exists; then the least recently seen goes, and the
 * listener set with `onLiveEviction` hears about it at most once a minute.
 *
 * Two Maps keep the two orders, each by re-inserting a key at most once per second: `bySeen` by
 * the last hit of any kind (least recently seen first), `byCounted` by the last counted hit (the
 * first to go stale first; a refused hit does not keep a window alive). Both fronts are O(1) to
 * read, so eviction is O(1) too.
 */
/**
 * Decides, per client key, whether one more request fits the key's window. The in-memory limiter
 * answers at once; a limiter whose windows are shared between replicas answers with a Promise,
 * which rejects when the shared windows cannot be reached: the caller then refuses the request
 * (fail closed), never lets it through unlimited.
 */
export interface RateLimiter {
  hit(key: string): RateDecision | Promise<RateDecision>;
}

export interface RateDecision {
  allowed: boolean;
  /** Seconds until a request would be allowed again (only when refused). */
  retryAfterSeconds: number;
}

interface Window {
  counts: Uint32Array;
  total: number;
  /** The latest second the ring has been advanced to (the last hit, counted or not). */
  lastSecond: number;
  /** The second of the last counted hit. */
  lastCounted: number;
}

const ALLOWED: RateDecision = Object.freeze({ allowed: true, retryAfterSeconds: 0 });

/** How often evictions of live windows are reported, at most. */
const LIVE_EVICTION_REPORT_MS = 60_000;

export class SlidingWindowRateLimiter implements RateLimiter {
  private readonly bySeen = new Map<string, Window>();
  private readonly byCounted = new Map<string, Window>();
  private liveEvictionListener: ((evicted: number) => void) | null = null;
  private liveEvictionsUnreported = 0;
  private lastLiveEvictionReport = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly limit: number,
    private readonly maxKeys = 10_000,
    private readonly windowSeconds = 60,
    private readonly now: () => number = Date.now,
  ) {}

  get trackedKeys(): number {
    return this.bySeen.size;
  }

  /**
   * Called, at most once a minute, when keys whose window was still live had to be forgotten
   * because every tracked key was live; `evicted` counts them since the previous call.
   */
  onLiveEviction(listener: (evicted: number) => void): void {
    this.liveEvictionListener = listener;
  }

  hit(key: string): RateDecision {
    const nowMs = this.now();
    const nowSec = Math.floor(nowMs / 1000);
    const win = this.touch(key, nowSec, nowMs);
    this.advance(win, nowSec);
    if (win.total >= this.limit) {
      return { allowed: false, retryAfterSeconds: this.secondsUntilFree(win, nowSec) };
    }
    const slot = nowSec % this.windowSeconds;
    win.counts[slot] = (win.counts[slot] as number) + 1;
    win.total++;
    if (win.lastCounted !== nowSec) {
      win.lastCounted = nowSec;
      this.byCounted.delete(key);
      this.byCounted.set(key, win);
    }
    return ALLOWED;
  }

  private touch(key: string, nowSec: number, nowMs: number): Window {
    const existing = this.bySeen.get(key);
    if (existing) {
      if (existing.lastSecond !== nowSec) {
        this.bySeen.delete(key);
        this.bySeen.set(key, existing);
      }
      return existing;
    }
    if (this.bySeen.size >= this.maxKeys) this.evictOne(nowSec, nowMs);
    // lastCounted starts out stale: a key all of whose hits are refused (limit 0) stays evictable.
    const created: Window = {
      counts: new Uint32Array(this.windowSeconds),
      total: 0,
      lastSecond: nowSec,
      lastCounted: nowSec - this.windowSeconds,
    };
    this.bySeen.set(key, created);
    this.byCounted.set(key, created);
    return created;
  }

  private evictOne(nowSec: number, nowMs: number): void {
    // The front of byCounted is the window to go stale first: if it is live, every window is.
    const first = this.byCounted.entries().next().value;
    if (first === undefined) return;
    const [staleCandidate, win] = first;
    if (win.lastCounted + this.windowSeconds <= nowSec) {
      this.forget(staleCandidate);
      return;
    }
    const leastRecentlySeen = this.bySeen.keys().next().value;
    if (leastRecentlySeen !== undefined) this.forget(leastRecentlySeen);
    this.liveEvictionsUnreported++;
    if (this.liveEvictionListener !== null && nowMs - this.lastLiveEvictionReport >= LIVE_EVICTION_REPORT_MS) {
      this.lastLiveEvictionReport = nowMs;
      const evicted = this.liveEvictionsUnreported;
      this.liveEvictionsUnreported = 0;
      this.liveEvictionListener(evicted);
    }
  }

  private forget(key: string): void {
    this.bySeen.delete(key);
    this.byCounted.delete(key);
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

/** The once-a-minute warning when the rate limiter had to forget clients still inside their window. */
export function liveEvictionWarning(listener: string, evicted: number): string {
  return (
    `${listener}: rate limiter is tracking its maximum of client addresses, all active within the last minute; ` +
    `forgot ${evicted} of them (least recently seen first), whose windows start afresh`
  );
}
