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

  it('fires a claim that comes late (a second, under a minute) at the occurrence it claims: late, not missed, the next one due at once', () => {
    const secondly = compileTimeline(parseSchedule('every 1 seconds'), 'UTC', STARTED);
    const due = ms('2026-01-01T00:01:27.000Z');
    // ~1 s late: the very case that was counted as a miss while every runner was up.
    expect(planFire(secondly, due, due + 1_014, STARTED)).toEqual({ fireAt: due, missed: 0, missedExact: true, lastMissedAt: null, next: due + 1_000 });
    // Stalled 59 s: still within the grace, so nothing is missed; the occurrences after it are claimed in turn.
    expect(planFire(secondly, due, due + 59_000, STARTED)).toEqual({ fireAt: due, missed: 0, missedExact: true, lastMissedAt: null, next: due + 1_000 });
    // A stall past the grace misses what is older than a minute, and fires the oldest occurrence inside it.
    const now = due + 65_500;
    expect(planFire(secondly, due, now, STARTED)).toEqual({
      fireAt: due + 6_000, missed: 6, missedExact: true, lastMissedAt: due + 5_000, next: due + 7_000,
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
