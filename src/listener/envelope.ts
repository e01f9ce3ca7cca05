import { ERROR_CATALOGUE, type ErrorCode } from './errors.js';

/** The two response shapes of the REST API. */
export interface OkEnvelope<T> {
  status: 'ok';
  data: T;
}

export interface ErrorEnvelope {
  status: 'error';
  error: string;
  /** The catalogue code (`src/listener/errors.ts`), stable across releases unlike the message. */
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

/**
 * JSON Schema of the error envelope, for the error answers a route documents in OpenAPI. Every
 * route that writes documents 507 (`AGENTD_STORAGE_FULL`): a full disk is an answer a client should
 * expect there and retry later, not a bug.
 */
export const errorSchema: Record<string, unknown> = {
  type: 'object',
  required: ['status', 'error', 'code'],
  properties: {
    status: { type: 'string', const: 'error' },
    error: { type: 'string', description: 'for people; may be reworded' },
    code: { type: 'string', enum: Object.keys(ERROR_CATALOGUE), description: 'stable: match on this' },
  },
};
