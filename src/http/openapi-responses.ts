import { ERROR_CATALOGUE } from '../listener/errors.js';

type Json = Record<string, unknown>;

const ERROR_REF = { $ref: '#/components/schemas/Error' };

/** The client errors an operation documents, each one named response of the error envelope. */
const CLIENT_ERRORS: Record<string, { name: string; when: string; headers?: Json }> = {
  '400': { name: 'BadRequest', when: 'Bad request: a body, path, query or header value that is malformed, missing, mistyped or out of range' },
  '401': { name: 'Unauthorized', when: 'Unauthorized: no valid key or session, an offered credential that is wrong, or no key configured' },
  '403': { name: 'Forbidden', when: 'Forbidden: a request authenticated by the session cookie without its X-CSRF-Token' },
  '404': { name: 'NotFound', when: 'Not found: no such id' },
  '409': { name: 'Conflict', when: 'Conflict: the request is well formed but the state forbids it' },
  '413': { name: 'PayloadTooLarge', when: 'Payload too large: a body over 1 MiB, or a message or task over 32,000 characters' },
  '415': { name: 'UnsupportedMediaType', when: 'Unsupported media type: the body is not application/json' },
  '429': {
    name: 'TooManyRequests',
    when: 'Too many requests: over the rate limit of the client\'s address',
    headers: { 'Retry-After': { description: 'seconds to wait before retrying', schema: { type: 'integer', minimum: 1 } } },
  },
};

/** The statuses a route may declare with the error envelope and have named here. */
export function isClientError(code: string): boolean {
  return code in CLIENT_ERRORS;
}

/** `$ref` to the named response of a client error status. */
export function clientErrorRef(code: string): Json {
  return { $ref: `#/components/responses/${CLIENT_ERRORS[code]!.name}` };
}

/**
 * `components.responses` for the statuses the operations use (an unused one would be noise): the
 * envelope, with the catalogue codes that status can carry (docs/api.md#errors).
 */
export function clientErrorResponses(used: ReadonlySet<string>): Json {
  const responses: Json = {};
  for (const [code, { name, when, headers }] of Object.entries(CLIENT_ERRORS)) {
    if (!used.has(code)) continue;
    const codes = Object.entries(ERROR_CATALOGUE).filter(([, entry]) => String(entry.status) === code).map(([key]) => key);
    responses[name] = {
      description: `${when}. Codes: ${codes.join(', ')}.`,
      ...(headers ? { headers } : {}),
      content: { 'application/json': { schema: ERROR_REF } },
    };
  }
  return responses;
}
