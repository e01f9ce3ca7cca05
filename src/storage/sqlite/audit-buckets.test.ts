import { describe, expect, it } from 'vitest';
import { countingPlan, keySpan, locate, type Bucket } from './audit-buckets.js';

describe('countingPlan', () => {
  it('counts whole days from days, whole hours at the ends from hours, and the minutes left from the events', () => {
    expect(countingPlan('2026-01-05T13:27:00.000Z', '2026-01-08T02:10:00.000Z')).toEqual({
      raw: [
        { from: '2026-01-05T13:27:00.000Z', to: '2026-01-05T14' },
        { from: '2026-01-08T02', to: '2026-01-08T02:10:00.000Z' },
      ],
      hours: [{ from: '2026-01-05T14', to: '2026-01-06T00' }, { from: '2026-01-08T00', to: '2026-01-08T02' }],
      days: { from: '2026-01-06', to: '2026-01-08' },
    });
  });

  it('needs no events when the bounds fall on hours, nor hours when they fall on days', () => {
    expect(countingPlan('2026-01-05T00:00:00.000Z', '2026-01-07T00:00:00.000Z')).toEqual({
      raw: [], hours: [], days: { from: '2026-01-05', to: '2026-01-07' },
    });
    expect(countingPlan('2026-01-05T03:00:00.000Z', '2026-01-05T07:00:00.000Z')).toEqual({
      raw: [], hours: [{ from: '2026-01-05T03', to: '2026-01-05T07' }], days: null,
    });
  });

  it('reads a range inside one hour from the events alone', () => {
    expect(countingPlan('2026-01-05T03:10:00.000Z', '2026-01-05T03:50:00.000Z')).toEqual({
      raw: [{ from: '2026-01-05T03:10:00.000Z', to: '2026-01-05T03:50:00.000Z' }], hours: [], days: null,
    });
    expect(countingPlan('2026-01-05T03:10:00.000Z', '2026-01-05T04:00:00.000Z')).toEqual({
      raw: [{ from: '2026-01-05T03:10:00.000Z', to: '2026-01-05T04:00:00.000Z' }], hours: [], days: null,
    });
  });

  it('leaves open ends open', () => {
    expect(countingPlan()).toEqual({ raw: [], hours: [], days: { from: null, to: null } });
    expect(countingPlan(undefined, '2026-01-05T03:10:00.000Z')).toEqual({
      raw: [{ from: '2026-01-05T03', to: '2026-01-05T03:10:00.000Z' }],
      hours: [{ from: '2026-01-05T00', to: '2026-01-05T03' }],
      days: { from: null, to: '2026-01-05' },
    });
    expect(countingPlan('2026-01-05T03:10:00.000Z')).toEqual({
      raw: [{ from: '2026-01-05T03:10:00.000Z', to: '2026-01-05T04' }],
      hours: [{ from: '2026-01-05T04', to: '2026-01-06T00' }],
      days: { from: '2026-01-06', to: null },
    });
  });

  it('gives each key the span it counts, across month and year ends', () => {
    expect(keySpan('2025-12-31')).toEqual({ from: '2025-12-31', to: '2026-01-01' });
    expect(keySpan('2026-02-28T23')).toEqual({ from: '2026-02-28T23', to: '2026-03-01T00' });
  });
});

describe('locate', () => {
  const bucket = (matched: number): Bucket => ({ from: 'a', to: 'b', matched, rows: matched });
  const buckets = [bucket(3), bucket(0), bucket(5), bucket(2)];

  it('finds the bucket of the first and the last row of a page', () => {
    expect(locate(buckets, 0, 2)).toEqual({ first: 0, within: 0, last: 0 });
    expect(locate(buckets, 0, 3)).toEqual({ first: 0, within: 0, last: 0 });
    expect(locate(buckets, 2, 2)).toEqual({ first: 0, within: 2, last: 2 });
    expect(locate(buckets, 3, 1)).toEqual({ first: 2, within: 0, last: 2 });
    expect(locate(buckets, 7, 50)).toEqual({ first: 2, within: 4, last: 3 });
    expect(locate(buckets, 9, 1)).toEqual({ first: 3, within: 1, last: 3 });
  });

  it('is null past the last match', () => {
    expect(locate(buckets, 10, 5)).toBeNull();
    expect(locate([], 0, 5)).toBeNull();
  });
});
