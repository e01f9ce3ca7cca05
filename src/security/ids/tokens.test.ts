import { describe, expect, it } from 'vitest';
import { newId, newTimeOrderedId, randomIdBytes, randomToken } from './tokens.js';

describe('ids and tokens', () => {
  it('mints distinct ids across pool refills, and an id never changes afterwards', () => {
    const first = randomIdBytes(12);
    const copy = Buffer.from(first);
    const ids = new Set<string>();
    for (let i = 0; i < 2000; i++) ids.add(newId('run')); // several refills of the 4 KiB pool
    expect(ids.size).toBe(2000);
    expect([...ids].every((id) => /^run_[A-Za-z0-9_-]{16}$/.test(id))).toBe(true);
    expect(first.equals(copy)).toBe(true);
  });

  it('mints time-ordered ids that sort by creation time and still differ within one millisecond', () => {
    const ids = [2_000, 1_000, 1_000, 1_700_000_000_000].map((ms) => newTimeOrderedId('run', ms));
    expect(ids.every((id) => /^run_[0-9a-z]{9}[A-Za-z0-9_-]{16}$/.test(id))).toBe(true);
    const [at2s, at1s, alsoAt1s, in2023] = ids as [string, string, string, string];
    expect(at1s < at2s && alsoAt1s < at2s && at2s < in2023).toBe(true);
    expect(at1s).not.toBe(alsoAt1s);
  });

  it('makes 32-byte URL-safe tokens', () => {
    const token = randomToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(randomToken()).not.toBe(token);
  });
});
