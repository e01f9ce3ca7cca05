import { describe, expect, it } from 'vitest';
import { LATE_FIRE_GRACE_MS, planFire } from './plan.js';
import { parseSchedule } from './schedule.js';
import { compileTimeline } from './timeline.js';

const ms = (iso: string) => Date.parse(iso);
const minutely = compileTimeline(parseSchedule('every 1 minutes'), 'UTC', ms('2026-01-01T00:00:00Z'));
const STARTED = ms('2026-01-01T00:00:00Z');

describe('planFire', () => {
  it('fires a due occurrence on time, with nothing missed', () => {
    expect(planFire(minutely, ms('2026-01-01T00:01:00Z'), ms('2026-01-01T00:01:00.250Z'), STARTED)).toEqual({
      fireAt: ms('2026-01-01T00:01:00Z'), missed: 0, missedExact: true, lastMissedAt: null, next: ms('2026-01-01T00:02:00Z'),
    });
  });

  it('after a stall fires only the latest occurrence and counts the others as missed', () => {
    expect(planFire(minutely, ms('2026-01-01T00:01:00Z'), ms('2026-01-01T00:04:10Z'), STARTED)).toEqual({
      fireAt: ms('2026-01-01T00:04:00Z'), missed: 3, missedExact: true, lastMissedAt: ms('2026-01-01T00:03:00Z'), next: ms('2026-01-01T00:05:00Z'),
    });
  });

  it('never fires an occurrence older than the grace', () => {
    const hourly = compileTimeline(parseSchedule('every 1 hours'), 'UTC', ms('2026-01-01T00:00:00Z'));
    const now = ms('2026-01-01T01:00:00Z') + LATE_FIRE_GRACE_MS + 1;
    expect(planFire(hourly, ms('2026-01-01T01:00:00Z'), now, STARTED)).toMatchObject({
      fireAt: null, missed: 1, lastMissedAt: ms('2026-01-01T01:00:00Z'), next: ms('2026-01-01T02:00:00Z'),
    });
  });

  it('never replays what fell due before the runner started, however recent', () => {
    const startedLater = ms('2026-01-01T00:05:30Z');
    expect(planFire(minutely, ms('2026-01-01T00:01:00Z'), ms('2026-01-01T00:05:31Z'), startedLater)).toEqual({
      fireAt: null, missed: 5, missedExact: true, lastMissedAt: ms('2026-01-01T00:05:00Z'), next: ms('2026-01-01T00:06:00Z'),
    });
  });
});
