/**
 * Errors of the scheduler. The HTTP layer maps each code to a catalogue code and status
 * (`src/http/resources/scheduler/errors.ts`); messages reach the operator verbatim, so they name
 * the field and say what is accepted.
 */
export type SchedulerErrorCode =
  /** A job field is invalid (400; the message names the field). */
  | 'invalid'
  /** A job field is longer than its cap where that is a 413 (`task`; docs/decisions.md#an-over-long-message-is-413). */
  | 'too_large'
  | 'job_not_found'
  | 'job_limit'
  /** The job is not in the state the operation needs (pausing a paused job). */
  | 'state_conflict';

export class SchedulerError extends Error {
  override readonly name: string = 'SchedulerError';
  constructor(
    readonly code: SchedulerErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** Ids and other client-supplied values are quoted in messages, shortened. */
export function quote(value: string, max = 80): string {
  return JSON.stringify(value.length > max ? `${value.slice(0, max)}…` : value);
}

export const invalidField = (field: string, problem: string) => new SchedulerError('invalid', `field "${field}" ${problem}`);
export const jobNotFound = (id: string) => new SchedulerError('job_not_found', `job ${quote(id)} not found`);
