import type { FastifyRequest } from 'fastify';
import { AgentError, type AgentErrorCode } from '../../agent/errors.js';
import type { AuditSink } from '../../audit/types.js';
import { ApiError, badRequest, conflict, notFound, payloadTooLarge } from '../errors.js';
import { MAX_MESSAGE_CHARS } from './agent-schemas.js';

const STATUS: Record<AgentErrorCode, number> = {
  session_not_found: 404,
  run_not_found: 404,
  session_busy: 409,
  run_finished: 409,
  budget_exceeded: 409,
  unpriced_model: 409,
  cancelled: 409,
  iteration_limit: 502,
  capacity: 503,
  shutting_down: 503,
  storage: 500,
};

/**
 * The agent runtime's errors as API errors. Provider errors carry their own status (400 for an
 * unknown or unavailable provider); a failed upstream call is a 502 whose message names the cause
 * (already scrubbed of keys by the provider layer). Anything else is left for the 500 handler.
 */
export function toApiError(err: unknown): unknown {
  if (err instanceof AgentError) {
    const status = STATUS[err.code];
    if (status === 404) return notFound(err.message);
    if (status === 409) return conflict(err.message);
    return new ApiError(status, err.message);
  }
  if (err instanceof Error) {
    if (err.name === 'UnknownProviderError' || err.name === 'ProviderUnavailableError') return badRequest(err.message);
    if (err.name === 'ProviderRequestError') return new ApiError(502, err.message);
  }
  return err;
}

/** Runs `fn`, turning agent and provider errors into API errors. */
export async function mapAgentErrors<T>(fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toApiError(err);
  }
}

/**
 * Checks run before schema validation: an over-long message is 413 (decisions.md), not the 400 the
 * schema's maxLength would give, and a field the route does not know is named in the 400 (a typo
 * such as `sesion_id` would otherwise silently start a new session). `optionalBody` lets an absent
 * body stand for `{}`.
 */
export function bodyGuard(allowed: readonly string[], options: { optionalBody?: boolean } = {}) {
  const known = new Set(allowed);
  return async (request: FastifyRequest): Promise<void> => {
    const body = request.body as unknown;
    if ((body === undefined || body === null) && options.optionalBody) {
      request.body = {};
      return;
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('body must be a JSON object');
    for (const key of Object.keys(body)) if (!known.has(key)) throw badRequest(`field "${key}" is not allowed`);
    const message = (body as { message?: unknown }).message;
    if (typeof message === 'string' && characterCount(message) > MAX_MESSAGE_CHARS) {
      throw payloadTooLarge(`field "message" is longer than ${MAX_MESSAGE_CHARS} characters`);
    }
  };
}

/** Unicode characters (code points), as JSON Schema's maxLength counts them. */
function characterCount(text: string): number {
  if (text.length <= MAX_MESSAGE_CHARS) return text.length;
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** The spec's audit trail of refused starts: `web.run` deny (and `web.chat` deny for chats). */
export async function auditBusy(audit: AuditSink, err: unknown, source: string, sessionId: string | null, kind: 'run' | 'chat'): Promise<void> {
  if (!(err instanceof AgentError) || err.code !== 'session_busy') return;
  await audit.emit({
    event_type: kind === 'run' ? 'web.run' : 'web.chat', category: 'web', result: 'deny', subsystem: 'agent',
    action: kind, source: source || null, session_id: sessionId, detail: { reason: 'a run is already in flight on the session' },
  });
}

