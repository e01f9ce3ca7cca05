import { describe, expect, it } from 'vitest';
import { newId, randomIdBytes, randomToken } from './tokens.js';

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

  it('makes 32-byte URL-safe tokens', () => {
    const token = randomToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(randomToken()).not.toBe(token);
  });
});
