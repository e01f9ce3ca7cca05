/**
 * The error catalogue of the HTTP listeners (REST API and webhook), in the spirit of Fastify's
 * `FST_ERR_*`: every error a client can receive has a stable `code`, its status and a default
 * message. The code is what a client matches on; the message is for people and may change. The
 * README's table of codes is checked against this one by a test.
 */
export const ERROR_CATALOGUE = {
  AGENTD_BAD_REQUEST: { status: 400, message: 'Bad request' },
  AGENTD_VALIDATION: { status: 400, message: 'Invalid request' },
  AGENTD_UNKNOWN_PROVIDER: { status: 400, message: 'Unknown provider' },
  AGENTD_PROVIDER_UNAVAILABLE: { status: 400, message: 'Provider not available' },
  AGENTD_UNAUTHORIZED: { status: 401, message: 'Unauthorized' },
  AGENTD_FORBIDDEN: { status: 403, message: 'Forbidden' },
  AGENTD_NOT_FOUND: { status: 404, message: 'Not found' },
  AGENTD_SESSION_NOT_FOUND: { status: 404, message: 'Session not found' },
  AGENTD_RUN_NOT_FOUND: { status: 404, message: 'Run not found' },
  AGENTD_TURN_NOT_FOUND: { status: 404, message: 'Turn not found' },
  AGENTD_JOB_NOT_FOUND: { status: 404, message: 'Job not found' },
  AGENTD_CONTROL_NOT_FOUND: { status: 404, message: 'Control not found' },
  AGENTD_TARGET_NOT_FOUND: { status: 404, message: 'Control target not found' },
  AGENTD_APPROVAL_NOT_FOUND: { status: 404, message: 'Approval not found' },
  AGENTD_METHOD_NOT_ALLOWED: { status: 405, message: 'Method not allowed' },
  AGENTD_REQUEST_TIMEOUT: { status: 408, message: 'Request timed out' },
  AGENTD_RUN_BUSY: { status: 409, message: 'A run is already in flight on the session' },
  AGENTD_RUN_FINISHED: { status: 409, message: 'The run has already finished' },
  AGENTD_RUN_CANCELLED: { status: 409, message: 'The run was cancelled' },
  AGENTD_BUDGET_EXCEEDED: { status: 409, message: 'The session has reached its spending cap' },
  AGENTD_UNPRICED_MODEL: { status: 409, message: 'The model has no known price' },
  AGENTD_WEBHOOK_REPLAY: { status: 409, message: 'Request already received' },
  AGENTD_IDEMPOTENCY_CONFLICT: { status: 409, message: 'The request id was already used with a different body' },
  AGENTD_CONFIRM_MISMATCH: { status: 409, message: 'The confirm string does not match the control\'s template' },
  AGENTD_APPROVAL_DECIDED: { status: 409, message: 'The approval was already decided' },
  AGENTD_SESSION_GRANT_REFUSED: { status: 409, message: 'allow_session is not offered for this approval' },
  AGENTD_STATE_CONFLICT: { status: 409, message: 'The target is not in a state the control applies to' },
  AGENTD_JOB_LIMIT: { status: 409, message: 'Job limit reached' },
  AGENTD_PAYLOAD_TOO_LARGE: { status: 413, message: 'Request body too large' },
  AGENTD_EXPECTATION_FAILED: { status: 417, message: 'Only "Expect: 100-continue" is supported' },
  AGENTD_UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Content-Type must be application/json' },
  AGENTD_RATE_LIMITED: { status: 429, message: 'Rate limit exceeded' },
  AGENTD_HEADERS_TOO_LARGE: { status: 431, message: 'Request headers too large' },
  AGENTD_INTERNAL: { status: 500, message: 'Internal server error' },
  AGENTD_STORAGE: { status: 500, message: 'A write did not commit' },
  AGENTD_PROVIDER_FAILED: { status: 502, message: 'The provider call failed' },
  AGENTD_ITERATION_LIMIT: { status: 502, message: 'The agent did not finish within its tool-call limit' },
  AGENTD_AT_CAPACITY: { status: 503, message: 'At capacity, retry later' },
  AGENTD_SHUTTING_DOWN: { status: 503, message: 'The service is shutting down' },
  AGENTD_COORDINATION_UNAVAILABLE: { status: 503, message: 'State shared between replicas is unreachable, retry later' },
  AGENTD_STORAGE_UNAVAILABLE: { status: 503, message: 'The database is unavailable, retry later' },
  AGENTD_NOT_READY: { status: 503, message: 'Not ready: the database or Redis is unreachable' },
  AGENTD_STORAGE_FULL: { status: 507, message: 'The storage is full: the change could not be saved; retry once disk space has been freed' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** An error with a catalogue code; the one error handler turns it into the envelope. */
export class ApiError extends Error {
  readonly statusCode: number;

  constructor(
    readonly code: ErrorCode,
    message: string = ERROR_CATALOGUE[code].message,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.statusCode = ERROR_CATALOGUE[code].status;
  }
}

export const badRequest = (message: string) => new ApiError('AGENTD_BAD_REQUEST', message);
export const invalidField = (message: string) => new ApiError('AGENTD_VALIDATION', message);
export const unauthorized = (message?: string) => new ApiError('AGENTD_UNAUTHORIZED', message);
/** Only the CSRF check refuses with 403. */
export const forbidden = (message: string) => new ApiError('AGENTD_FORBIDDEN', message);
export const notFound = () => new ApiError('AGENTD_NOT_FOUND');
export const methodNotAllowed = (allow: readonly string[]) =>
  new ApiError('AGENTD_METHOD_NOT_ALLOWED', undefined, { allow: allow.join(', ') });
export const payloadTooLarge = (message?: string) => new ApiError('AGENTD_PAYLOAD_TOO_LARGE', message);
export const unsupportedMediaType = () => new ApiError('AGENTD_UNSUPPORTED_MEDIA_TYPE');
export const rateLimited = (retryAfterSeconds: number) =>
  new ApiError('AGENTD_RATE_LIMITED', undefined, { 'retry-after': String(retryAfterSeconds) });
export const internalError = () => new ApiError('AGENTD_INTERNAL');
export const shuttingDown = (headers: Record<string, string> = {}) => new ApiError('AGENTD_SHUTTING_DOWN', undefined, headers);
/** The shared rate-limit windows (Redis) could not be reached: fail closed, the client retries. */
export const coordinationUnavailable = () => new ApiError('AGENTD_COORDINATION_UNAVAILABLE', undefined, { 'retry-after': '1' });
export const expectationFailed = () => new ApiError('AGENTD_EXPECTATION_FAILED');
