/** The two response shapes of the REST API. */
export interface OkEnvelope<T> {
  status: 'ok';
  data: T;
}

export interface ErrorEnvelope {
  status: 'error';
  error: string;
}

export const ok = <T>(data: T): OkEnvelope<T> => ({ status: 'ok', data });
export const errorBody = (error: string): ErrorEnvelope => ({ status: 'error', error });

/** JSON Schema of a success envelope around `data`, for route `response` schemas and OpenAPI. */
export function okSchema(data: Record<string, unknown>): Record<string, unknown> {
  return {
    type: 'object',
    required: ['status', 'data'],
    properties: { status: { type: 'string', const: 'ok' }, data },
  };
}

export const errorSchema = {
  type: 'object',
  required: ['status', 'error'],
  properties: { status: { type: 'string', const: 'error' }, error: { type: 'string' } },
} as const;
