import { describe, expect, it } from 'vitest';
import { RingBuffer } from './ring-buffer.js';

describe('RingBuffer', () => {
  it('returns items oldest first', () => {
    const q = new RingBuffer<number>(4);
    q.push(1);
    q.push(2);
    q.push(3);
    expect([q.shift(), q.shift(), q.shift()]).toEqual([1, 2, 3]);
    expect(q.shift()).toBeUndefined();
  });

  it('refuses a push when full and accepts one again after a shift', () => {
    const q = new RingBuffer<string>(2);
    expect(q.push('a')).toBe(true);
    expect(q.push('b')).toBe(true);
    expect(q.isFull).toBe(true);
    expect(q.push('c')).toBe(false);
    expect(q.size).toBe(2);
    expect(q.shift()).toBe('a');
    expect(q.push('c')).toBe(true);
    expect([q.shift(), q.shift()]).toEqual(['b', 'c']);
  });

  it('keeps order across many wrap-arounds', () => {
    const q = new RingBuffer<number>(3);
    const out: number[] = [];
    for (let i = 0; i < 100; i++) {
      expect(q.push(i)).toBe(true);
      if (i % 2 === 1) {
        out.push(q.shift() as number);
        out.push(q.shift() as number);
      }
    }
    expect(out).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(q.size).toBe(0);
  });

  it('tracks size through pushes and shifts', () => {
    const q = new RingBuffer<number>(5);
    expect(q.size).toBe(0);
    q.push(1);
    q.push(2);
    expect(q.size).toBe(2);
    q.shift();
    expect(q.size).toBe(1);
    q.shift();
    q.shift();
    expect(q.size).toBe(0);
  });

  it('rejects a capacity that is not a positive integer', () => {
    expect(() => new RingBuffer(0)).toThrow(RangeError);
    expect(() => new RingBuffer(1.5)).toThrow(RangeError);
  });
});
