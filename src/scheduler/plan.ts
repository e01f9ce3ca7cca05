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
 * Only the most recent due occurrence may fire, and only if the runner was already up when it fell
 * due and it is not older than the grace: fires that fell due while the process was down are never
 * replayed (decisions.md), only counted, so the operator sees that they did not happen.
 */
export function planFire(timeline: Timeline, due: number, now: number, runnerStartedAt: number): FirePlan {
  const catchup = timeline.catchUp(due, now);
  const fires = catchup.latest >= runnerStartedAt && now - catchup.latest <= LATE_FIRE_GRACE_MS;
  return {
    fireAt: fires ? catchup.latest : null,
    missed: catchup.before + (fires ? 0 : 1),
    missedExact: catchup.exact,
    lastMissedAt: fires ? catchup.previous : catchup.latest,
    next: catchup.next,
  };
}
