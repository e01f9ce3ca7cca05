import type { FastifyError } from 'fastify';
import { AgentError, type AgentErrorCode } from '../agent/errors.js';
import { ApprovalError, type ApprovalErrorCode } from '../approvals/errors.js';
import { ControlError, type ControlErrorCode } from '../controls/errors.js';
import { SchedulerError, type SchedulerErrorCode } from '../scheduler/errors.js';
import { ProviderRequestError, ProviderUnavailableError, UnknownProviderError } from '../providers/errors.js';
import { StorageBusyError, StorageFullError, StorageUnavailableError } from '../storage/ports/errors.js';
import { ApiError, invalidField, payloadTooLarge, unsupportedMediaType, type ErrorCode } from './errors.js';

/** The agent runtime's failures in the catalogue; its messages are written for the operator. */
const AGENT_CODES: Record<AgentErrorCode, ErrorCode> = {
  session_not_found: 'AGENTD_SESSION_NOT_FOUND',
  run_not_found: 'AGENTD_RUN_NOT_FOUND',
  session_busy: 'AGENTD_RUN_BUSY',
  run_finished: 'AGENTD_RUN_FINISHED',
  budget_exceeded: 'AGENTD_BUDGET_EXCEEDED',
  unpriced_model: 'AGENTD_UNPRICED_MODEL',
  cancelled: 'AGENTD_RUN_CANCELLED',
  iteration_limit: 'AGENTD_ITERATION_LIMIT',
  capacity: 'AGENTD_AT_CAPACITY',
  shutting_down: 'AGENTD_SHUTTING_DOWN',
  storage: 'AGENTD_STORAGE',
  storage_full: 'AGENTD_STORAGE_FULL',
  coordination_unavailable: 'AGENTD_COORDINATION_UNAVAILABLE',
  storage_unavailable: 'AGENTD_STORAGE_UNAVAILABLE',
};

/** The scheduler's refusals; `invalid` messages name the field. */
const SCHEDULER_CODES: Record<SchedulerErrorCode, ErrorCode> = {
  invalid: 'AGENTD_VALIDATION',
  too_large: 'AGENTD_PAYLOAD_TOO_LARGE',
  job_not_found: 'AGENTD_JOB_NOT_FOUND',
  job_limit: 'AGENTD_JOB_LIMIT',
  state_conflict: 'AGENTD_STATE_CONFLICT',
};

const CONTROL_CODES: Record<ControlErrorCode, ErrorCode> = {
  control_not_found: 'AGENTD_CONTROL_NOT_FOUND',
  target_not_found: 'AGENTD_TARGET_NOT_FOUND',
  confirm_mismatch: 'AGENTD_CONFIRM_MISMATCH',
  conflict: 'AGENTD_STATE_CONFLICT',
};

const APPROVAL_CODES: Record<ApprovalErrorCode, ErrorCode> = {
  approval_not_found: 'AGENTD_APPROVAL_NOT_FOUND',
  confirm_mismatch: 'AGENTD_CONFIRM_MISMATCH',
  already_decided: 'AGENTD_APPROVAL_DECIDED',
  session_grant_refused: 'AGENTD_SESSION_GRANT_REFUSED',
};

/** Fastify's own client errors that can reach the handler, reworded for API clients. */
const FASTIFY_CODES: Record<string, () => ApiError> = {
  FST_ERR_CTP_BODY_TOO_LARGE: () => payloadTooLarge('Request body too large (limit 1 MiB)'),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: unsupportedMediaType,
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => new ApiError('AGENTD_BAD_REQUEST', 'Request body size did not match Content-Length'),
};

/** decisions.md: a `message` (a job's `task` alike) over its length limit is 413, not the 400 of other fields. */
const TOO_LARGE_FIELDS: ReadonlySet<string> = new Set(['message', 'task']);

/**
 * Any error a route, hook or parser threw, as a catalogue error; null for what is not a known
 * client-facing failure (a bug: the caller logs it and answers 500 without details).
 */
export function asApiError(error: unknown): ApiError | null {
  if (error instanceof ApiError) return error;
  if (error instanceof AgentError) return new ApiError(AGENT_CODES[error.code], error.message);
  if (error instanceof SchedulerError) return new ApiError(SCHEDULER_CODES[error.code], error.message);
  if (error instanceof ControlError) return new ApiError(CONTROL_CODES[error.code], error.message);
  if (error instanceof ApprovalError) return new ApiError(APPROVAL_CODES[error.code], error.message);
  // Provider messages are written for the operator and scrubbed of keys by the provider layer.
  if (error instanceof UnknownProviderError) return new ApiError('AGENTD_UNKNOWN_PROVIDER', error.message);
  if (error instanceof ProviderUnavailableError) return new ApiError('AGENTD_PROVIDER_UNAVAILABLE', error.message);
  if (error instanceof ProviderRequestError) return new ApiError('AGENTD_PROVIDER_FAILED', error.message);
  // Any write of any route (turns, runs, pins, deletions, audit events) on a full disk.
  if (error instanceof StorageFullError) return new ApiError('AGENTD_STORAGE_FULL');
  if (error instanceof StorageBusyError) return new ApiError('AGENTD_AT_CAPACITY', error.message, { 'retry-after': '1' });
  if (error instanceof StorageUnavailableError) return new ApiError('AGENTD_STORAGE_UNAVAILABLE');
  if (!(error instanceof Error)) return null;
  const fastify = error as FastifyError;
  if (fastify.validation) return fromValidation(fastify);
  const known = FASTIFY_CODES[fastify.code];
  if (known) return known();
  // Any other 4xx of Fastify's is a request we cannot serve; its message names no internals.
  if (fastify.statusCode !== undefined && fastify.statusCode >= 400 && fastify.statusCode < 500) {
    return new ApiError('AGENTD_BAD_REQUEST', fastify.message);
  }
  return null;
}

const PART_NAMES: Record<string, string> = { body: 'field', querystring: 'query parameter', params: 'path parameter' };

/** A schema validation failure as a message naming the field (the first failure only). */
function fromValidation(error: FastifyError): ApiError {
  const context = error.validationContext ?? 'body';
  const first = error.validation?.[0];
  if (!first) return invalidField(error.message);
  const field = first.instancePath.slice(1).replace(/\//g, '.');
  const params = first.params as { missingProperty?: string; additionalProperty?: string; limit?: number };
  const what = (name: string) => `${PART_NAMES[context] ?? context} "${name}"`;
  const prefix = field ? `${field}.` : '';
  if (params.missingProperty) return invalidField(`${what(prefix + params.missingProperty)} is required`);
  if (params.additionalProperty) return invalidField(`${what(prefix + params.additionalProperty)} is not allowed`);
  if (field === '') return invalidField(first.keyword === 'type' ? `${context} must be a JSON object` : `${context} ${first.message ?? 'is invalid'}`);
  if (context === 'body' && first.keyword === 'maxLength' && TOO_LARGE_FIELDS.has(field)) {
    return payloadTooLarge(`${what(field)} is longer than ${params.limit} characters`);
  }
  return invalidField(`${what(field)} ${first.message ?? 'is invalid'}`);
}
