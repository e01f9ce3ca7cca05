import type { ErrorCode } from './errors.js';

/** The two response shapes of the REST API. */
export interface OkEnvelope<T> {
  status: 'ok';
  data: T;
}

export interface ErrorEnvelope {
  status: 'error';
  error: string;
  /** The catalogue code (`src/http/errors.ts`), stable across releases unlike the message. */
  code: ErrorCode;
}

export const ok = <T>(data: T): OkEnvelope<T> => ({ status: 'ok', data });
export const errorBody = (error: { message: string; code: ErrorCode }): ErrorEnvelope => ({
  status: 'error',
  error: error.message,
  code: error.code,
});

/** JSON Schema of a success envelope around `data`, for route `response` schemas and OpenAPI. */
export function okSchema(data: Record<string, unknown>): Record<string, unknown> {
  return {
    type: 'object',
    required: ['status', 'data'],
    properties: { status: { type: 'string', const: 'ok' }, data },
  };
}
