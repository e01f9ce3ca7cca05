import { describe, expect, it } from 'vitest';
import { ExpiringKeys } from './expiring-keys.js';

describe('ExpiringKeys', () => {
  it('remembers a key until its expiry', () => {
    const keys = new ExpiringKeys(10, 'evict-oldest');
    keys.add('a', 1000, 0);
    expect(keys.has('a', 999)).toBe(true);
    expect(keys.has('a', 1000)).toBe(false);
    expect(keys.has('b', 0)).toBe(false);
  });

  it('forgets the oldest key when full in evict mode', () => {
    const keys = new ExpiringKeys(3, 'evict-oldest');
    for (const k of ['a', 'b', 'c', 'd']) expect(keys.add(k, 1000, 0)).toBe(true);
    expect(keys.size).toBe(3);
    expect(keys.has('a', 0)).toBe(false);
    expect(keys.has('d', 0)).toBe(true);
  });

  it('refuses a new key when full of live keys in refuse mode', () => {
    const keys = new ExpiringKeys(2, 'refuse');
    expect(keys.add('a', 1000, 0)).toBe(true);
    expect(keys.add('b', 1000, 0)).toBe(true);
    expect(keys.add('c', 1000, 0)).toBe(false);
    expect(keys.has('a', 0)).toBe(true);
    expect(keys.has('c', 0)).toBe(false);
  });

  it('makes room from expired keys, even ones behind a longer-lived key', () => {
    const keys = new ExpiringKeys(2, 'refuse');
    keys.add('long', 5000, 0);
    keys.add('short', 100, 0);
    expect(keys.add('new', 5000, 200)).toBe(true);
    expect(keys.has('long', 200)).toBe(true);
    expect(keys.has('short', 200)).toBe(false);
  });

  it('stays within its bound under a stream of distinct keys', () => {
    const keys = new ExpiringKeys(100, 'evict-oldest');
    for (let i = 0; i < 10_000; i++) keys.add(`k${i}`, 1_000_000, i);
    expect(keys.size).toBe(100);
  });

  it('drops expired keys as new ones arrive', () => {
    const keys = new ExpiringKeys(100, 'evict-oldest');
    for (let i = 0; i < 50; i++) keys.add(`k${i}`, i + 10, i);
    expect(keys.size).toBeLessThan(15);
  });
});
