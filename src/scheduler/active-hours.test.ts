import { describe, expect, it } from 'vitest';
import { parseActiveHours, withinActiveHours } from './active-hours.js';

const ms = (iso: string) => Date.parse(iso);

describe('active hours', () => {
  it('parses HH:MM-HH:MM into minutes, 24:00 allowed as an end', () => {
    expect(parseActiveHours('09:00-17:30')).toEqual({ start: 540, end: 1050 });
    expect(parseActiveHours(' 22:00 - 06:00 ')).toEqual({ start: 1320, end: 360 });
    expect(parseActiveHours('18:00-24:00')).toEqual({ start: 1080, end: 1440 });
  });

  it.each([
    ['09:00', /must be HH:MM-HH:MM/],
    ['9-17', /must be HH:MM-HH:MM/],
    ['09:00-17:00-18:00', /must be HH:MM-HH:MM/],
    ['25:00-06:00', /must be HH:MM-HH:MM/],
    ['24:00-06:00', /must be HH:MM-HH:MM/],
    ['09:00-09:00', /starts and ends at the same time/],
    ['00:00-24:00', /starts and ends at the same time/],
  ])('refuses %j', (text, message) => {
    expect(() => parseActiveHours(text)).toThrow(message);
  });

  it('includes the start and excludes the end of a daytime window, in the job\'s zone', () => {
    const window = parseActiveHours('09:00-17:00');
    expect(withinActiveHours(window, ms('2026-01-05T09:00:00Z'), 'UTC')).toBe(true);
    expect(withinActiveHours(window, ms('2026-01-05T16:59:00Z'), 'UTC')).toBe(true);
    expect(withinActiveHours(window, ms('2026-01-05T17:00:00Z'), 'UTC')).toBe(false);
    expect(withinActiveHours(window, ms('2026-01-05T08:59:00Z'), 'UTC')).toBe(false);
    // 09:00 in Tokyo is 00:00 UTC.
    expect(withinActiveHours(window, ms('2026-01-05T00:00:00Z'), 'Asia/Tokyo')).toBe(true);
    expect(withinActiveHours(window, ms('2026-01-05T09:00:00Z'), 'Asia/Tokyo')).toBe(false);
  });

  it('runs an overnight window across midnight', () => {
    const window = parseActiveHours('22:00-06:00');
    expect(withinActiveHours(window, ms('2026-01-05T22:00:00Z'), 'UTC')).toBe(true);
    expect(withinActiveHours(window, ms('2026-01-05T23:59:00Z'), 'UTC')).toBe(true);
    expect(withinActiveHours(window, ms('2026-01-06T00:00:00Z'), 'UTC')).toBe(true);
    expect(withinActiveHours(window, ms('2026-01-06T05:59:00Z'), 'UTC')).toBe(true);
    expect(withinActiveHours(window, ms('2026-01-06T06:00:00Z'), 'UTC')).toBe(false);
    expect(withinActiveHours(window, ms('2026-01-06T12:00:00Z'), 'UTC')).toBe(false);
    expect(withinActiveHours(window, ms('2026-01-06T21:59:00Z'), 'UTC')).toBe(false);
    // 23:00 in New York is 04:00 UTC the next day.
    expect(withinActiveHours(window, ms('2026-01-06T04:00:00Z'), 'America/New_York')).toBe(true);
    expect(withinActiveHours(window, ms('2026-01-06T22:00:00Z'), 'America/New_York')).toBe(false);
  });
});
