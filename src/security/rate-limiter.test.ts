import { describe, expect, it } from 'vitest';
import { SlidingWindowRateLimiter } from './rate-limiter.js';

describe('SlidingWindowRateLimiter', () => {
  it('allows `limit` hits per sliding 60 s and says when the next one fits', () => {
    let now = 1_000_000;
    const limiter = new SlidingWindowRateLimiter(3, 100, 60, () => now);
    expect(limiter.hit('a').allowed).toBe(true);
    now += 10_000;
    expect(limiter.hit('a').allowed).toBe(true);
    expect(limiter.hit('a').allowed).toBe(true);
    const refused = limiter.hit('a');
    expect(refused).toEqual({ allowed: false, retryAfterSeconds: 50 });
    expect(limiter.hit('b').allowed).toBe(true);
    now += 50_000; // the first hit has left the window, the other two have not
    expect(limiter.hit('a').allowed).toBe(true);
    expect(limiter.hit('a').allowed).toBe(false);
  });

  it('keeps at most maxKeys keys, dropping the least recently seen', () => {
    const limiter = new SlidingWindowRateLimiter(1, 10_000, 60, () => 5_000_000);
    expect(limiter.hit('first').allowed).toBe(true);
    expect(limiter.hit('first').allowed).toBe(false);
    for (let i = 0; i < 10_000; i++) limiter.hit(`ip-${i}`);
    expect(limiter.trackedKeys).toBe(10_000);
    expect(limiter.hit('first').allowed).toBe(true);
    expect(limiter.trackedKeys).toBe(10_000);
  });
});
