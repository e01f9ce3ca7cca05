import { SchedulerError } from '../../../scheduler/errors.js';
import { codedErrors, type ErrorEntry } from '../../error-entries.js';

/** The scheduler's refusals; `invalid` messages name the field. */
export const SCHEDULER_ERRORS: readonly ErrorEntry[] = [
  codedErrors(SchedulerError, {
    invalid: 'AGENTD_VALIDATION',
    too_large: 'AGENTD_PAYLOAD_TOO_LARGE',
    job_not_found: 'AGENTD_JOB_NOT_FOUND',
    job_limit: 'AGENTD_JOB_LIMIT',
    state_conflict: 'AGENTD_STATE_CONFLICT',
  }),
];
