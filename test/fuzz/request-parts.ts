import fc from 'fast-check';
import { headerValue, hostileString, numberText } from './values.js';

/**
 * Parts every generated request is made of, for both listeners: method, Host, extra headers, the
 * content type and the body's framing. Placeholders (`ID_SLOT`, `COOKIE_SLOT`) are filled when the
 * request is sent, from ids and session cookies the service handed out earlier in the run.
 */
export const ID_SLOT = '{id}';
export const COOKIE_SLOT = '{cookie}';

/** Headers that delimit a body (Content-Length, Transfer-Encoding), chosen once the body is final. */
export type Framing = (body: Buffer | null) => [string, string][];

/** A generated request before its placeholders are filled; `pick` chooses which id or cookie. */
export interface GeneratedRequest {
  method: string;
  target: string;
  headers: [string, string][];
  body: Buffer | null;
  /** Applied to the filled body (an id put in the body changes its length). */
  framing: Framing;
  pick: number;
}

const COMMON_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
// Methods Node's parser knows but no route has, and one it does not know at all (FOO).
const ODD_METHODS = ['TRACE', 'PROPFIND', 'PURGE', 'M-SEARCH', 'LINK', 'FOO'];

/** Mostly the route's own method, else any other (CONNECT aside: it turns the connection into a tunnel). */
export function method(preferred: string): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant(preferred) },
    { weight: 4, arbitrary: fc.constantFrom(...COMMON_METHODS) },
    { weight: 1, arbitrary: fc.constantFrom(...ODD_METHODS) },
  );
}

/** Host: present and ordinary, or missing, repeated or odd (HTTP/1.1 requires exactly one). */
export function host(authority: string): fc.Arbitrary<[string, string][]> {
  return fc.oneof(
    { weight: 20, arbitrary: fc.constant<[string, string][]>([['Host', authority]]) },
    { weight: 1, arbitrary: fc.constant<[string, string][]>([]) },
    { weight: 1, arbitrary: fc.constant<[string, string][]>([['Host', authority], ['Host', 'evil.example']]) },
    { weight: 1, arbitrary: headerValue.map((v): [string, string][] => [['Host', v]]) },
  );
}

/** The media type sent with a body: usually the expected one, else a near miss or nonsense. */
export function contentType(expected: string): fc.Arbitrary<[string, string][]> {
  const one = (value: string): [string, string][] => [['Content-Type', value]];
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant(one(expected)) },
    {
      weight: 6,
      arbitrary: fc.constantFrom(
        'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/json;charset=latin1', 'application/json ; x=y',
        'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/merge-patch+json',
        'application/json, text/plain', 'application/jsonx', '', ';', 'json',
      ).map(one),
    },
    { weight: 1, arbitrary: headerValue.map(one) },
    { weight: 2, arbitrary: fc.constant<[string, string][]>([]) },
    { weight: 1, arbitrary: fc.constant<[string, string][]>([['Content-Type', expected], ['Content-Type', 'text/plain']]) },
  );
}

/**
 * How the body is delimited. Mostly a right Content-Length; else chunked, or a length the parser
 * must refuse before reading a byte. Never a well-formed length that
 * disagrees with the body: the server would rightly wait for bytes that never come.
 */
export const framing: fc.Arbitrary<Framing> = fc.oneof(
  { weight: 12, arbitrary: fc.constant((body: Buffer | null): [string, string][] => (body ? [['Content-Length', String(body.length)]] : [])) },
  // Chunked, said explicitly: for GET, HEAD, DELETE and OPTIONS Node would otherwise send the body unframed.
  { weight: 2, arbitrary: fc.constant((body: Buffer | null): [string, string][] => (body ? [['Transfer-Encoding', 'chunked']] : [])) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('abc', '-1', '1e3', '0x10', '1 2', '+5', '').map((bad) => (): [string, string][] => [['Content-Length', bad]]),
  },
  {
    weight: 1,
    arbitrary: fc.constant((body: Buffer | null): [string, string][] => [['Content-Length', String(body?.length ?? 0)], ['Content-Length', String((body?.length ?? 0) + 1)]]),
  },
  {
    weight: 1,
    arbitrary: fc.constant((body: Buffer | null): [string, string][] => [['Transfer-Encoding', 'chunked'], ['Content-Length', String(body?.length ?? 0)]]),
  },
);

const token = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.!#$%&\'*+^`|~'), minLength: 1, maxLength: 30 });

/** Headers a client may add, sensible or not, each maybe repeated. */
export const extraHeader: fc.Arbitrary<[string, string]> = fc.oneof(
  fc.tuple(fc.constant('X-Forwarded-For'), fc.oneof(fc.constantFrom('203.0.113.7', '::1', '203.0.113.7, 10.0.0.1', 'unknown', '999.1.1.1', '[::1]:80', ''), headerValue)),
  fc.tuple(fc.constant('Last-Event-ID'), fc.oneof(numberText, headerValue)),
  fc.tuple(fc.constant('Accept'), fc.constantFrom('*/*', 'text/event-stream', 'text/html', 'application/json', 'image/png', '')),
  fc.tuple(fc.constant('Accept-Encoding'), fc.constantFrom('gzip', 'br, deflate', 'identity;q=0', '*')),
  fc.tuple(fc.constant('Expect'), fc.constantFrom('100-continue', 'bogus', '')),
  fc.tuple(fc.constant('Connection'), fc.constantFrom('close', 'keep-alive', 'Upgrade', 'close, keep-alive', 'bogus')),
  fc.tuple(fc.constant('Upgrade'), fc.constantFrom('websocket', 'h2c', 'bogus')),
  fc.tuple(fc.constant('Cookie'), fc.oneof(
    fc.constantFrom(`service_operator_session=${COOKIE_SLOT}`, 'service_operator_session=garbage', 'service_operator_session=', 'a=b; a=c', '=;=;'),
    headerValue,
  )),
  fc.tuple(fc.constant('X-CSRF-Token'), headerValue),
  fc.tuple(fc.constant('Origin'), fc.constantFrom('http://evil.example', 'null')),
  fc.tuple(fc.constant('X-Request-Id'), headerValue),
  fc.tuple(fc.constant('Range'), fc.constantFrom('bytes=0-1', 'bytes=-5', 'bogus')),
  fc.tuple(fc.constant('If-None-Match'), fc.constantFrom('*', '"x"')),
  fc.tuple(fc.constant('X-HTTP-Method-Override'), fc.constantFrom(...COMMON_METHODS)),
  fc.tuple(token, headerValue),
);

export const extraHeaders: fc.Arbitrary<[string, string][]> = fc.array(extraHeader, { maxLength: 3 });

/** A string for a field or parameter meant to be an id: one the service gave out, or not. */
export const idText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constant(ID_SLOT) },
  { weight: 2, arbitrary: hostileString },
  { weight: 1, arbitrary: fc.constant('x'.repeat(300)) },
);
