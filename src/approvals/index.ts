/** Approvals as a resource: requests that wait for an operator's decision over the API and console. */
export { Approvals, type ApprovalsOptions, type OperatorDecisionInput, type RunApprovalEvents, type WaitingWork } from './approvals.js';
export { ApprovalError, type ApprovalErrorCode } from './errors.js';
export { isChannelSession, networkGrant, originOf, toolGrant, type Grant } from './grant.js';
export { networkRequest, toolRequest, type ExactRequest, type RequestKeys } from './request-text.js';
export * from '../storage/ports/approvals.js';
export { loadRequestHashKey, requestDigest, type RequestHashKey } from './hash-key.js';
