import { ApprovalError } from '../../../approvals/errors.js';
import { codedErrors, type ErrorEntry } from '../../error-entries.js';

/** Refusals of an operator's decision on an approval. */
export const APPROVAL_ERRORS: readonly ErrorEntry[] = [
  codedErrors(ApprovalError, {
    approval_not_found: 'AGENTD_APPROVAL_NOT_FOUND',
    confirm_mismatch: 'AGENTD_CONFIRM_MISMATCH',
    already_decided: 'AGENTD_APPROVAL_DECIDED',
    session_grant_refused: 'AGENTD_SESSION_GRANT_REFUSED',
  }),
];
