import { describe, expect, it } from 'vitest';
import { formatTime, formatUsd, formatUtc, localDateTime } from './format.js';
import { lastDays, lastHours } from './hours.js';

describe('formatUsd', () => {
  it('shows cents from a dollar on, and two significant digits below, trailing zeros dropped past the cents', () => {
    expect([0, 0.024, 0.012, 0.006, 0.0061, 0.5, 0.0396, 0.000123, 0.999, 1, 12.345, -0.024].map(formatUsd)).toEqual([
      '$0.00', '$0.024', '$0.012', '$0.006', '$0.0061', '$0.50', '$0.04', '$0.00012', '$1.00', '$1.00', '$12.35', '-$0.024',
    ]);
  });
});

describe('times', () => {
  // Vitest runs in the process's zone; the formats are checked against the same Intl the browser uses.
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;

  it('shows an instant in the console\'s zone, naming the zone, and in UTC for the tooltip', () => {
    const iso = '2026-01-05T13:04:05.678Z';
    expect(formatTime(iso)).toBe(`${localDateTime(new Date(iso)).replace('T', ' ')} ${zone}`);
    expect(formatUtc(iso)).toBe('2026-01-05 13:04:05 UTC');
    expect(formatTime(null)).toBe('—');
    expect(formatTime('not a time')).toBe('not a time');
  });

  it('reads back the wall clock it shows: a datetime-local value of the shown time is the same second', () => {
    const iso = '2026-07-01T22:30:15.000Z';
    expect(new Date(localDateTime(new Date(iso))).toISOString()).toBe(iso);
  });

  it('counts whole hours and days back from now, oldest first', () => {
    const now = Date.parse('2026-03-10T10:20:00Z');
    expect(lastHours(3, now)).toEqual(['2026-03-10T08:00:00.000Z', '2026-03-10T09:00:00.000Z', '2026-03-10T10:00:00.000Z']);
    const days = lastDays(14, now);
    expect(days).toHaveLength(14);
    expect(new Set(days).size).toBe(14);
    expect(days.at(-1)).toBe(localDateTime(new Date(now)).slice(0, 10));
  });
});
