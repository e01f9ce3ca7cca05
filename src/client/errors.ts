import type { components } from './openapi-types.js';

/** The catalogue code of an error envelope (README: Error codes). */
export type ErrorCode = components['schemas']['Error']['code'];

/**
 * A request agentd refused or failed: the envelope's `code` (match on it; messages may be
 * reworded), its message and the HTTP status. `code` is null when the answer was not agentd's
 * envelope (a proxy's error page in front of it, say).
 */
export class AgentdApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode | null,
    message: string,
    /** X-Request-Id of the answer: the service log's line and audit events of this request name it. */
    readonly requestId: string | null,
  ) {
    super(message);
  }

  /** The error of a non-2xx answer, from its parsed body. */
  static of(response: Response, body: unknown): AgentdApiError {
    const requestId = response.headers.get('x-request-id');
    if (isEnvelope(body)) return new AgentdApiError(response.status, body.code, body.error, requestId);
    return new AgentdApiError(response.status, null, `HTTP ${response.status} without agentd's error envelope`, requestId);
  }
}

function isEnvelope(body: unknown): body is components['schemas']['Error'] {
  if (typeof body !== 'object' || body === null) return false;
  const { status, error, code } = body as Record<string, unknown>;
  return status === 'error' && typeof error === 'string' && typeof code === 'string';
}

/**
 * A run's event stream ended before its terminal event (the connection dropped, the service
 * stopped): `runEvents(runId, { lastEventId })` resumes after the last event received.
 */
export class RunStreamInterruptedError extends Error {
  constructor(readonly runId: string, readonly lastEventId: number, options?: { cause: unknown }) {
    super(`the event stream of run ${runId} ended before its terminal event (last event id ${lastEventId}); resume with lastEventId ${lastEventId}`, options);
  }
}
