import { Cron } from 'croner';
import { parseSchedule, type ScheduleSpec } from './schedule.js';

/**
 * Most occurrences counted one by one when a calendar schedule is caught up after a gap. croner
 * takes 0.1–0.2 ms per step in a time zone, so a week of a per-minute cron would block the event
 * loop for seconds; past this many the rest is skipped in one step and the count is a lower bound.
 */
export const COUNT_LIMIT = 100;

/** The occurrences from a due one up to now. */
export interface Catchup {
  /** The most recent occurrence at or before now. */
  latest: number;
  /** The occurrence before `latest`, or null when `latest` is the first one. */
  previous: number | null;
  /** Occurrences from the due one up to, not including, `latest`. */
  before: number;
  /** False when `before` is a lower bound (more than `COUNT_LIMIT` passed). */
  exact: boolean;
  /** The first occurrence after now, or null when there is none. */
  next: number | null;
}

/** A schedule in its time zone: when it fires. Times are milliseconds since the epoch. */
export interface Timeline {
  /** The first occurrence strictly after `after`, or null when there is none. */
  next(after: number): number | null;
  /** From `due` (an occurrence at or before `now`) up to `now`. */
  catchUp(due: number, now: number): Catchup;
}

/**
 * The timeline of a job's schedule. `every` intervals count from `anchorMs` (the job's creation),
 * so the grid survives restarts and pauses; calendar forms are croner patterns in `zone`, where DST
 * follows croner's rules: a fixed time that occurs twice fires once, one that does not exist fires
 * at the first valid time after the gap.
 */
export function compileTimeline(spec: ScheduleSpec, zone: string, anchorMs: number): Timeline {
  return spec.kind === 'every' ? intervalTimeline(spec.intervalMs, anchorMs) : cronTimeline(spec.pattern, spec.once, zone);
}

function intervalTimeline(interval: number, anchor: number): Timeline {
  return {
    next: (after) => anchor + Math.max(1, Math.floor((after - anchor) / interval) + 1) * interval,
    catchUp: (due, now) => {
      const before = Math.floor((now - due) / interval);
      const latest = due + before * interval;
      return { latest, previous: before > 0 ? latest - interval : null, before, exact: true, next: latest + interval };
    },
  };
}

function cronTimeline(pattern: string, once: boolean, zone: string): Timeline {
  const cron = new Cron(pattern, { mode: once ? '7-part' : '5-part', timezone: zone });
  const next = (after: number) => cron.nextRun(new Date(after))?.getTime() ?? null;
  return {
    next,
    catchUp: (due, now) => {
      let latest = due;
      let previous: number | null = null;
      let before = 0;
      for (let upcoming = next(due); ; upcoming = next(latest)) {
        if (upcoming === null || upcoming > now) return { latest, previous, before, exact: true, next: upcoming };
        if (before === COUNT_LIMIT) {
          // croner's previous runs are strictly before the reference: +1 ms takes in `now` itself.
          const [last, beforeLast] = cron.previousRuns(2, new Date(now + 1));
          return { latest: last!.getTime(), previous: beforeLast?.getTime() ?? null, before, exact: false, next: next(now) };
        }
        previous = latest;
        latest = upcoming;
        before++;
      }
    },
  };
}

/** The timeline of a stored job (its schedule was checked when it was created). */
export function jobTimeline(job: { schedule: string; timezone: string; created_at: string }): Timeline {
  return compileTimeline(parseSchedule(job.schedule), job.timezone, Date.parse(job.created_at));
}
