import { describe, expect, it } from 'vitest';
import { parseSchedule } from './schedule.js';
import { COUNT_LIMIT, compileTimeline, type Timeline } from './timeline.js';

const ms = (iso: string) => Date.parse(iso);
const iso = (value: number | null) => (value === null ? null : new Date(value).toISOString());

function timeline(schedule: string, zone = 'UTC', created = '2026-01-01T00:00:00.000Z'): Timeline {
  return compileTimeline(parseSchedule(schedule), zone, ms(created));
}

/** The next `n` occurrences after `from`. */
function fires(line: Timeline, from: string, n: number): (string | null)[] {
  const out: (string | null)[] = [];
  let after: number | null = ms(from);
  for (let i = 0; i < n && after !== null; i++) {
    after = line.next(after);
    out.push(iso(after));
  }
  return out;
}

describe('next fire', () => {
  it('counts `every` intervals from the job\'s creation, whatever the zone', () => {
    const line = timeline('every 15 minutes', 'Asia/Kolkata', '2026-01-01T10:07:30.000Z');
    expect(fires(line, '2026-01-01T10:07:30.000Z', 3)).toEqual(['2026-01-01T10:22:30.000Z', '2026-01-01T10:37:30.000Z', '2026-01-01T10:52:30.000Z']);
    // From any later instant, the next point on the same grid (strictly after).
    expect(iso(line.next(ms('2026-01-02T00:00:00.000Z')))).toBe('2026-01-02T00:07:30.000Z');
    expect(iso(line.next(ms('2026-01-02T00:07:30.000Z')))).toBe('2026-01-02T00:22:30.000Z');
  });

  it('places daily times in the job\'s zone', () => {
    const from = '2026-01-10T12:00:00.000Z';
    expect(fires(timeline('daily at 09:00', 'UTC'), from, 1)).toEqual(['2026-01-11T09:00:00.000Z']);
    expect(fires(timeline('daily at 09:00', 'Asia/Tokyo'), from, 2)).toEqual(['2026-01-11T00:00:00.000Z', '2026-01-12T00:00:00.000Z']);
    expect(fires(timeline('daily at 09:00', 'America/New_York'), from, 1)).toEqual(['2026-01-10T14:00:00.000Z']);
    expect(fires(timeline('daily at 09:00', 'Asia/Kolkata'), from, 1)).toEqual(['2026-01-11T03:30:00.000Z']);
  });

  it('places weekly days in the job\'s zone, where the local day can differ from UTC\'s', () => {
    // Monday 08:00 in Auckland (UTC+13 in January) is Sunday 19:00 UTC.
    expect(fires(timeline('weekly on monday at 08:00', 'Pacific/Auckland'), '2026-01-01T00:00:00.000Z', 2))
      .toEqual(['2026-01-04T19:00:00.000Z', '2026-01-11T19:00:00.000Z']);
    expect(fires(timeline('0 9 * * MON-FRI', 'Europe/London'), '2026-01-09T10:00:00.000Z', 2))
      .toEqual(['2026-01-12T09:00:00.000Z', '2026-01-13T09:00:00.000Z']);
  });

  it('fires a one-shot once, in its zone, and never after', () => {
    const line = timeline('at 2026-07-01 09:30', 'Europe/Paris');
    expect(fires(line, '2026-01-01T00:00:00.000Z', 2)).toEqual(['2026-07-01T07:30:00.000Z', null]);
    expect(line.next(ms('2026-07-01T07:30:00.000Z'))).toBeNull();
  });

  describe('across DST in Europe/Berlin (croner\'s rules: one fire per wall-clock occurrence)', () => {
    it('a fixed time inside the skipped hour fires at the first valid time after the gap, once', () => {
      // 2026-03-29: clocks jump from 02:00 to 03:00 local (01:00 UTC).
      expect(fires(timeline('daily at 02:30', 'Europe/Berlin'), '2026-03-28T12:00:00.000Z', 3))
        .toEqual(['2026-03-29T01:00:00.000Z', '2026-03-30T00:30:00.000Z', '2026-03-31T00:30:00.000Z']);
    });

    it('a fixed time inside the repeated hour fires once, at its first occurrence', () => {
      // 2026-10-25: clocks go back from 03:00 to 02:00 local; 02:30 happens at 00:30 and 01:30 UTC.
      expect(fires(timeline('daily at 02:30', 'Europe/Berlin'), '2026-10-24T12:00:00.000Z', 3))
        .toEqual(['2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z', '2026-10-27T01:30:00.000Z']);
    });

    it('an interval pattern keeps firing through the repeated hour and skips the missing one', () => {
      expect(fires(timeline('30 * * * *', 'Europe/Berlin'), '2026-10-25T00:00:00.000Z', 3))
        .toEqual(['2026-10-25T00:30:00.000Z', '2026-10-25T01:30:00.000Z', '2026-10-25T02:30:00.000Z']);
      expect(fires(timeline('30 * * * *', 'Europe/Berlin'), '2026-03-29T00:00:00.000Z', 2))
        .toEqual(['2026-03-29T00:30:00.000Z', '2026-03-29T01:30:00.000Z']);
    });

    it('`every` intervals are elapsed time: DST does not move them', () => {
      const line = timeline('every 1 hours', 'Europe/Berlin', '2026-10-24T23:00:00.000Z');
      expect(fires(line, '2026-10-25T00:00:00.000Z', 3)).toEqual(['2026-10-25T01:00:00.000Z', '2026-10-25T02:00:00.000Z', '2026-10-25T03:00:00.000Z']);
    });
  });
});

describe('catching up after a gap', () => {
  it('counts the occurrences from the due one to now and finds the latest, the one before and the next', () => {
    const line = timeline('every 1 minutes', 'UTC', '2026-01-01T00:00:00.000Z');
    expect(line.catchUp(ms('2026-01-01T00:01:00.000Z'), ms('2026-01-01T00:05:30.000Z'))).toEqual({
      latest: ms('2026-01-01T00:05:00.000Z'), previous: ms('2026-01-01T00:04:00.000Z'), before: 4, exact: true, next: ms('2026-01-01T00:06:00.000Z'),
    });
    expect(line.catchUp(ms('2026-01-01T00:01:00.000Z'), ms('2026-01-01T00:01:00.000Z'))).toEqual({
      latest: ms('2026-01-01T00:01:00.000Z'), previous: null, before: 0, exact: true, next: ms('2026-01-01T00:02:00.000Z'),
    });
  });

  it('counts calendar occurrences one by one', () => {
    const line = timeline('daily at 09:00', 'Europe/Berlin');
    expect(line.catchUp(ms('2026-01-05T08:00:00.000Z'), ms('2026-01-08T12:00:00.000Z'))).toEqual({
      latest: ms('2026-01-08T08:00:00.000Z'), previous: ms('2026-01-07T08:00:00.000Z'), before: 3, exact: true, next: ms('2026-01-09T08:00:00.000Z'),
    });
    const once = timeline('at 2026-03-01 10:00');
    expect(once.catchUp(ms('2026-03-01T10:00:00.000Z'), ms('2026-06-01T00:00:00.000Z')))
      .toEqual({ latest: ms('2026-03-01T10:00:00.000Z'), previous: null, before: 0, exact: true, next: null });
  });

  it(`stops counting a calendar schedule after ${COUNT_LIMIT} and gives a lower bound, still finding the latest and next`, () => {
    const line = timeline('* * * * *', 'Europe/Berlin');
    const caught = line.catchUp(ms('2026-01-01T00:00:00.000Z'), ms('2026-01-08T00:00:30.000Z'));
    expect(caught).toEqual({
      latest: ms('2026-01-08T00:00:00.000Z'), previous: ms('2026-01-07T23:59:00.000Z'), before: COUNT_LIMIT, exact: false, next: ms('2026-01-08T00:01:00.000Z'),
    });
  });
});
