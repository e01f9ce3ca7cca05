import { describe, expect, it } from 'vitest';
import { ReplayGuard } from './replay-guard.js';

const T = 1_700_000_000;
const ms = (seconds: number) => seconds * 1000;

describe('ReplayGuard.checkTimestamp', () => {
  const guard = new ReplayGuard();

  it('accepts a timestamp within 300 s either way', () => {
    expect(guard.checkTimestamp(String(T), ms(T))).toEqual({ ok: true, timestamp: String(T), seconds: T });
    expect(guard.checkTimestamp(String(T - 300), ms(T)).ok).toBe(true);
    expect(guard.checkTimestamp(String(T + 300), ms(T)).ok).toBe(true);
  });

  it('refuses a skew over 300 s', () => {
    expect(guard.checkTimestamp(String(T - 301), ms(T)).ok).toBe(false);
    expect(guard.checkTimestamp(String(T + 301), ms(T)).ok).toBe(false);
  });

  it.each([undefined, '', '-5', '1.5', '17e8', ' 1700000000', '1'.repeat(13)])('refuses %j', (header) => {
    expect(guard.checkTimestamp(header, ms(T)).ok).toBe(false);
  });
});

describe('ReplayGuard replay memory', () => {
  it('recognises a remembered signature, whatever the hex case', () => {
    const guard = new ReplayGuard();
    expect(guard.remember('sha256=AB', T, ms(T))).toBe(true);
    expect(guard.isReplay('sha256=ab', ms(T + 10))).toBe(true);
    expect(guard.isReplay('sha256=cd', ms(T + 10))).toBe(false);
  });

  it('keeps a signature for as long as its timestamp would pass the skew check', () => {
    const guard = new ReplayGuard();
    guard.remember('sig', T, ms(T));
    expect(guard.isReplay('sig', ms(T + 300) + 999)).toBe(true);
    expect(guard.isReplay('sig', ms(T + 301) + 1)).toBe(false);
  });
});

describe('ReplayGuard.recordOf', () => {
  it('keeps the lower-case signature until one second past the last moment its timestamp passes the skew check', () => {
    const guard = new ReplayGuard(60);
    expect(guard.recordOf('sha256=ABcd', T)).toEqual({ signature: 'sha256=abcd', expiresAtMs: ms(T + 61) });
  });
});
