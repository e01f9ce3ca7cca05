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

  it('forgets a stale key before a live one, even when the live one was seen less recently', () => {
    let now = 10_000_000;
    const limiter = new SlidingWindowRateLimiter(1, 3, 60, () => now);
    // s1 and s2 use their one request now and are refused 50 s later: seen recently, but their
    // windows end 60 s after the counted request.
    expect(limiter.hit('s1').allowed).toBe(true);
    expect(limiter.hit('s2').allowed).toBe(true);
    now += 30_000;
    expect(limiter.hit('blocked').allowed).toBe(true);
    expect(limiter.hit('blocked').allowed).toBe(false);
    now += 20_000;
    expect(limiter.hit('s1').allowed).toBe(false);
    expect(limiter.hit('s2').allowed).toBe(false);
    // 61 s after their counted requests s1 and s2 are stale; `blocked` is the least recently seen
    // key but its window (counted at +30 s) is live until +90 s.
    now += 11_000;
    expect(limiter.hit('new-1').allowed).toBe(true);
    expect(limiter.hit('new-2').allowed).toBe(true);
    expect(limiter.trackedKeys).toBe(3);
    const stillBlocked = limiter.hit('blocked');
    expect(stillBlocked.allowed).toBe(false);
    expect(stillBlocked.retryAfterSeconds).toBe(29);
  });

  it('never forgets a live client while stale ones exist, however many new addresses arrive', () => {
    let now = 20_000_000;
    const limiter = new SlidingWindowRateLimiter(2, 100, 60, () => now);
    for (let i = 0; i < 99; i++) limiter.hit(`old-${i}`);
    now += 61_000;
    limiter.hit('client');
    limiter.hit('client');
    expect(limiter.hit('client').allowed).toBe(false);
    for (let i = 0; i < 99; i++) expect(limiter.hit(`rotating-${i}`).allowed).toBe(true);
    expect(limiter.hit('client').allowed).toBe(false);
  });

  it('when every key is live, forgets the least recently seen and reports it at most once a minute', () => {
    let now = 30_000_000;
    const reports: number[] = [];
    const limiter = new SlidingWindowRateLimiter(1, 2, 60, () => now);
    limiter.onLiveEviction((evicted) => reports.push(evicted));
    limiter.hit('a');
    limiter.hit('b');
    now += 1_000;
    expect(limiter.hit('a').allowed).toBe(false); // seen again: `b` is now the least recently seen
    expect(limiter.hit('c').allowed).toBe(true); // every window is live: b goes, and it is reported
    expect(reports).toEqual([1]);
    expect(limiter.hit('a').allowed).toBe(false); // a was kept
    expect(limiter.hit('b').allowed).toBe(true); // b starts afresh; a (least recently seen) goes
    expect(limiter.hit('a').allowed).toBe(true); // a starts afresh; c goes
    expect(reports).toEqual([1]); // two more live evictions within the minute: not reported yet
    now += 60_000;
    limiter.hit('x'); // b and a were counted 60 s ago: stale, forgotten without a report
    limiter.hit('y');
    expect(reports).toEqual([1]);
    limiter.hit('z'); // x and y are live: a live eviction, a minute after the last report
    expect(reports).toEqual([1, 3]);
    expect(limiter.trackedKeys).toBe(2);
  });
});
