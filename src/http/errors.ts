/**
 * The error catalogue of the REST API. Handlers and hooks throw these; the one error handler in
 * `pipeline.ts` turns them (and anything else) into the error envelope.
 */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const badRequest = (message: string) => new ApiError(400, message);
export const unauthorized = () => new ApiError(401, 'Unauthorized');
export const forbidden = (message: string) => new ApiError(403, message);
export const notFound = (what = 'Not found') => new ApiError(404, what);
export const methodNotAllowed = (allow: string[]) =>
  new ApiError(405, 'Method not allowed', { allow: allow.join(', ') });
export const conflict = (message: string) => new ApiError(409, message);
export const payloadTooLarge = (message = 'Request body too large') => new ApiError(413, message);
export const unsupportedMediaType = () => new ApiError(415, 'Content-Type must be application/json');
export const rateLimited = (retryAfterSeconds: number) =>
  new ApiError(429, 'Rate limit exceeded', { 'retry-after': String(retryAfterSeconds) });
export const serviceUnavailable = (message: string, headers: Record<string, string> = {}) => new ApiError(503, message, headers);
export const GENERIC_500 = 'Internal server error';
