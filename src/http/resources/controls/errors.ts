import { ControlError } from '../../../controls/errors.js';
import { codedErrors, type ErrorEntry } from '../../error-entries.js';

/** Refusals of an operator control. */
export const CONTROL_ERRORS: readonly ErrorEntry[] = [
  codedErrors(ControlError, {
    control_not_found: 'AGENTD_CONTROL_NOT_FOUND',
    target_not_found: 'AGENTD_TARGET_NOT_FOUND',
    confirm_mismatch: 'AGENTD_CONFIRM_MISMATCH',
    conflict: 'AGENTD_STATE_CONFLICT',
  }),
];
