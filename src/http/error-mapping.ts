import type { FastifyError } from 'fastify';
import { AgentError } from '../contracts/agent-errors.js';
import { ProviderRequestError, ProviderUnavailableError, UnknownProviderError } from '../providers/errors.js';
import { StorageBusyError, StorageFullError, StorageUnavailableError } from '../storage/ports/errors.js';
import { codedErrors, errorEntry, type ErrorEntry } from './error-entries.js';
import { RESOURCES } from './resources/index.js';
import { ApiError, invalidField, payloadTooLarge, unsupportedMediaType } from '../listener/errors.js';

/** Domain errors the routes of several resources raise; each resource lists those only its own routes do. */
const SHARED_ERRORS: readonly ErrorEntry[] = [
  // The agent runtime's failures (sessions, chat, runs, costs); its messages are written for the operator.
  codedErrors(AgentError, {
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
  }),
  // Provider messages are written for the operator and scrubbed of keys by the provider layer.
  errorEntry(UnknownProviderError, (error) => new ApiError('AGENTD_UNKNOWN_PROVIDER', error.message)),
  errorEntry(ProviderUnavailableError, (error) => new ApiError('AGENTD_PROVIDER_UNAVAILABLE', error.message)),
  errorEntry(ProviderRequestError, (error) => new ApiError('AGENTD_PROVIDER_FAILED', error.message)),
  // Any write of any route (turns, runs, pins, deletions, audit events) on a full disk.
  errorEntry(StorageFullError, () => new ApiError('AGENTD_STORAGE_FULL')),
  errorEntry(StorageBusyError, (error) => new ApiError('AGENTD_AT_CAPACITY', error.message, { 'retry-after': '1' })),
  errorEntry(StorageUnavailableError, () => new ApiError('AGENTD_STORAGE_UNAVAILABLE')),
];

/**
 * The one table of domain errors and their catalogue codes that the error handler asks: the shared
 * entries and those of every resource in the list.
 */
export const DOMAIN_ERRORS: readonly ErrorEntry[] = [...SHARED_ERRORS, ...RESOURCES.flatMap((resource) => resource.errors)];

/** Fastify's own client errors that can reach the handler, reworded for API clients. */
const FASTIFY_CODES: Record<string, () => ApiError> = {
  FST_ERR_CTP_BODY_TOO_LARGE: () => payloadTooLarge('Request body too large (limit 1 MiB)'),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: unsupportedMediaType,
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => new ApiError('AGENTD_BAD_REQUEST', 'Request body size did not match Content-Length'),
};

/** A `message` (a job's `task` alike) over its length is 413, not 400 (docs/decisions.md#an-over-long-message-is-413). */
const TOO_LARGE_FIELDS: ReadonlySet<string> = new Set(['message', 'task']);

/**
 * Any error a route, hook or parser threw, as a catalogue error; null for what is not a known
 * client-facing failure (a bug: the caller logs it and answers 500 without details).
 */
export function asApiError(error: unknown): ApiError | null {
  if (error instanceof ApiError) return error;
  for (const entry of DOMAIN_ERRORS) {
    const answer = entry.answer(error);
    if (answer !== null) return answer;
  }
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
