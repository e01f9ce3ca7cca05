import { describe, expect, it } from 'vitest';
import { RequestIdMemory } from './request-ids.js';

describe('RequestIdMemory', () => {
  it('remembers an id for 10 minutes', () => {
    const ids = new RequestIdMemory();
    ids.remember('req-1', 0);
    expect(ids.seen('req-1', 599_999)).toBe(true);
    expect(ids.seen('req-1', 600_000)).toBe(false);
    expect(ids.seen('req-2', 0)).toBe(false);
  });

  it('tells long ids apart by their hash', () => {
    const ids = new RequestIdMemory();
    const long = 'x'.repeat(500);
    ids.remember(long, 0);
    expect(ids.seen(long, 1)).toBe(true);
    expect(ids.seen(`${long}y`, 1)).toBe(false);
  });

  it('keeps at most 10,000 ids', () => {
    const ids = new RequestIdMemory();
    for (let i = 0; i < 12_000; i++) ids.remember(`id-${i}`, 0);
    expect(ids.size).toBe(10_000);
    expect(ids.seen('id-0', 0)).toBe(false);
    expect(ids.seen('id-11999', 0)).toBe(true);
  });
});
