import { describe, expect, it } from 'vitest';
import { secretMatcher } from './compare.js';

describe('secretMatcher', () => {
  const key = 'k3y-ünï-0123456789abcdef';
  const matches = secretMatcher(key);

  it('matches the exact key only, whatever was compared before it', () => {
    const wrong = [
      `${key.slice(0, -1)}g`, // same length, last byte differs
      key.slice(0, -1), // a prefix
      `${key}f`, // longer
      key.replace('ü', 'u'), // same characters counted in UTF-16, one byte fewer in UTF-8
      key.replace('ü', 'uu'), // same length in UTF-8 bytes, other bytes
      '',
    ];
    for (const offered of wrong) {
      expect(matches(offered), offered).toBe(false);
      expect(matches(key)).toBe(true);
    }
  });
});
