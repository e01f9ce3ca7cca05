import type { Timeline } from './timeline.js';

/**
 * How late an occurrence may still fire, for a runner that was up when it fell due (a stalled
 * event loop, a slow store). Anything older was missed.
 */
export const LATE_FIRE_GRACE_MS = 60_000;

/** What a runner does with a job that is due. */
export interface FirePlan {
  /** The occurrence to fire now, or null when every due occurrence was missed. */
  fireAt: number | null;
  /** Occurrences that pass without a fire. */
  missed: number;
  /** False when `missed` is a lower bound (see `COUNT_LIMIT`). */
  missedExact: boolean;
  lastMissedAt: number | null;
  /** The job's next occurrence after now (null: none, a one-shot has run out). */
  next: number | null;
}

/**
 * An occurrence fires if the runner was already up when it fell due and it is not older than the
 * grace; a claim that merely comes late (a slow pass, a busy store, a second behind on a busy
 * machine) fires that occurrence late — it is not a miss — and moves the job on to the next one,
 * which may already be due and is then claimed at once (firing, or skipping `in_flight` while this
 * fire's run is still going). Only occurrences that fell due while the process was down, or that
 * are older than the grace (the runner stalled for longer), are missed: never replayed
 * (docs/decisions.md#missed-fires-are-counted-not-replayed), only counted, so the operator sees that they did not happen.
 */
export function planFire(timeline: Timeline, due: number, now: number, runnerStartedAt: number): FirePlan {
  // The oldest moment an occurrence may have fallen due and still fire.
  const horizon = Math.max(runnerStartedAt, now - LATE_FIRE_GRACE_MS);
  if (due >= horizon) return { fireAt: due, missed: 0, missedExact: true, lastMissedAt: null, next: timeline.next(due) };
  // Everything before the horizon was missed; the first occurrence at or after it fires if it is due.
  const gone = timeline.catchUp(due, horizon - 1);
  const fires = gone.next !== null && gone.next <= now;
  return {
    fireAt: fires ? gone.next : null,
    missed: gone.before + 1,
    missedExact: gone.exact,
    lastMissedAt: gone.latest,
    next: fires ? timeline.next(gone.next!) : gone.next,
  };
}
