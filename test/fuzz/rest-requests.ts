import fc from 'fast-check';
import { contentType, extraHeaders, framing, host, ID_SLOT, idText, method, type GeneratedRequest } from './request-parts.js';
import type { FuzzRoute } from './routes.js';
import { headerValue, hostileString, jsonValueText, notAnObjectBody, numberText, objectText, oversizeBody, percentEncode, queryValue } from './values.js';

/** Requests for the REST listener: every route of the API and the console, near misses and garbage. */

/** Credentials as clients send them: the key (both headers), none, wrong ones, broken ones, several at once. */
function auth(apiKey: string): fc.Arbitrary<[string, string][]> {
  const bearer = (v: string): [string, string] => ['Authorization', v];
  const key = (v: string): [string, string] => ['X-API-Key', v];
  return fc.oneof(
    { weight: 14, arbitrary: fc.constant<[string, string][]>([bearer(`Bearer ${apiKey}`)]) },
    { weight: 4, arbitrary: fc.constant<[string, string][]>([key(apiKey)]) },
    { weight: 1, arbitrary: fc.constant<[string, string][]>([bearer(`Bearer ${apiKey}`), key(apiKey)]) },
    { weight: 3, arbitrary: fc.constant<[string, string][]>([]) },
    {
      weight: 4,
      arbitrary: fc.constantFrom<[string, string][]>(
        [bearer('Bearer wrong-key')], [bearer(`Basic ${Buffer.from(`u:${apiKey}`).toString('base64')}`)], [bearer('Bearer')], [bearer('Bearer ')],
        [bearer(`bearer ${apiKey}`)], [bearer(`Bearer  ${apiKey}`)], [bearer(`Bearer ${apiKey} `)], [bearer(`Bearer ${apiKey}x`)],
        [bearer(`Bearer ${apiKey.slice(0, -1)}`)], [bearer(`Bearer ${apiKey}`), bearer('Bearer wrong')], [bearer(`Bearer ${apiKey}`), key('wrong')],
        [key(apiKey), key(apiKey)], [key('')], [bearer(`Bearer ${'k'.repeat(10_000)}`)],
      ),
    },
    { weight: 1, arbitrary: headerValue.map((v): [string, string][] => [bearer(v)]) },
  );
}

/** The route's path with its parameter filled, maybe bent (trailing slash, case, dot segments, encoding). */
function routePath(route: FuzzRoute): fc.Arbitrary<string> {
  const filled = idText.map((id) => route.path.replace('{id}', id === ID_SLOT ? id : percentEncode(id)));
  return fc.tuple(filled, fc.constantFrom('none', 'none', 'none', 'none', 'none', 'none', 'slash', 'double', 'upper', 'dot', 'encoded')).map(([path, bend]) => {
    switch (bend) {
      case 'slash': return `${path}/`;
      case 'double': return path.replace('/', '//');
      case 'upper': return path.toUpperCase();
      case 'dot': return path.replace(/\/([^/]*)$/, '/./$1');
      case 'encoded': return path.replace(/[a-z]/, (c) => `%${c.charCodeAt(0).toString(16)}`);
      default: return path;
    }
  });
}

// What Node lets a client put in a request target: visible ASCII and latin-1, no '?' or '#'.
const pathChar = fc.integer({ min: 0x21, max: 0xff }).filter((c) => c !== 0x3f && c !== 0x23 && c !== 0x7f).map((c) => String.fromCharCode(c));

const garbagePath: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: pathChar, maxLength: 40 }).map((s) => `/${s}`),
  fc.string({ unit: pathChar, maxLength: 20 }).map((s) => `/api/v1/${s}`),
  fc.constantFrom('*', 'http://127.0.0.1/api/v1/health', '/api/v1/../api/v1/health', '/%2e%2e/etc/passwd', '/api/v1/%00', '/%', '/api/v1', '/api'),
  fc.constant(`/${'a'.repeat(10_000)}`),
);

/** A query string: the route's own parameters and others, repeated, as arrays, huge, badly encoded. */
function query(route: FuzzRoute): fc.Arbitrary<string> {
  const known = route.query.length > 0 ? route.query : ['limit'];
  const key = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...known) },
    { weight: 1, arbitrary: fc.constantFrom(...known).map((k) => `${k}[]`) },
    { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'limit[0]', 'q[a]', '', 'a.b') },
    { weight: 1, arbitrary: hostileString.map(percentEncode) },
  );
  const value = fc.oneof({ weight: 3, arbitrary: queryValue }, { weight: 1, arbitrary: fc.constant(ID_SLOT) });
  const pairs = fc.array(fc.tuple(key, value), { maxLength: 5 }).map((list) => list.map(([k, v]) => `${k}=${v}`).join('&'));
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant('') },
    { weight: 6, arbitrary: pairs.map((q) => `?${q}`) },
    { weight: 1, arbitrary: fc.constantFrom('?', '??', '?&&', '?=', '?a', '#frag', `?limit=${'9'.repeat(400)}`, `?q=${'%41'.repeat(20_000)}`) },
  );
}

// Values a well-meaning client would send, so handlers run (chats, runs, sessions, jobs, controls)
// rather than everything stopping at validation.
const SENSIBLE: Record<string, fc.Arbitrary<string>> = {
  message: fc.constantFrom('hello', 'what is 17*23?', 'search memory for invoice', 'what time is it in Tokyo?'),
  session_id: fc.constant(ID_SLOT),
  provider: fc.constantFrom('offline', 'openai', 'anthropic', 'nope'),
  name: fc.constantFrom('nightly', 'x'),
  schedule: fc.constantFrom('every 6 hours', 'daily at 09:00', 'weekly on monday at 08:30', 'every 0 seconds', 'sometimes'),
  task: fc.constantFrom('summarize', 'hello'),
  timezone: fc.constantFrom('UTC', 'Europe/Paris', 'Mars/Olympus'),
  active_hours: fc.constantFrom('09:00-17:00', '25:00-26:00'),
  target: fc.constantFrom('offline', ID_SLOT, 'nope'),
  confirm: fc.constantFrom('set-default:offline', `remove-job:${ID_SLOT}`, `pause-job:${ID_SLOT}`, 'set-default:<provider>', ''),
  api_key: fc.constant('wrong'),
};

function sensibleValue(field: string, type: string): fc.Arbitrary<string> {
  if (type === 'boolean') return fc.constantFrom('true', 'false');
  return (SENSIBLE[field] ?? hostileString).map((s) => JSON.stringify(s));
}

/** A JSON object for the route: fields well typed, wrongly typed, missing, unknown, repeated. */
function jsonBody(fields: Record<string, string>, required: string[]): fc.Arbitrary<string> {
  const names = Object.keys(fields);
  const entry = (name: string) => fc.tuple(fc.constant(name), fc.oneof(sensibleValue(name, fields[name]!), jsonValueText));
  const wellTyped = fc.tuple(...names.map((n) => fc.tuple(fc.constant(n), sensibleValue(n, fields[n]!)))).chain((all) =>
    fc.subarray(all).map((picked) => [...all.filter(([n]) => required.includes(n)), ...picked.filter(([n]) => !required.includes(n))]),
  );
  const anything = fc.array(
    fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...names).chain(entry) }, { weight: 1, arbitrary: fc.tuple(hostileString, jsonValueText) }),
    { maxLength: names.length + 2 },
  );
  return objectText(fc.oneof({ weight: 3, arbitrary: wellTyped }, { weight: 4, arbitrary: anything }));
}

/** A form body (the login form): the field right or wrong, repeated, hostile, or not a form at all. */
const formBody: fc.Arbitrary<string> = fc.oneof(
  fc.array(fc.tuple(fc.constantFrom('api_key', 'api_key[]', 'x'), queryValue), { maxLength: 3 }).map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&')),
  numberText,
);

function body(route: FuzzRoute): fc.Arbitrary<Buffer | null> {
  const text = (arb: fc.Arbitrary<string>) => arb.map((t) => Buffer.from(t));
  const own = route.fields === null ? null
    : route.contentType === 'application/json' ? text(jsonBody(route.fields, route.required)) : text(formBody);
  // An oversize body is about one in 350: each costs a few MiB on the wire.
  return fc.oneof(
    { weight: own ? 20 : 240, arbitrary: fc.constant(null) },
    ...(own ? [{ weight: 240, arbitrary: own }] : []),
    { weight: 60, arbitrary: notAnObjectBody },
    { weight: 20, arbitrary: text(jsonBody({ message: 'string', session_id: 'string' }, [])) },
    { weight: 1, arbitrary: oversizeBody },
  );
}

export function restRequest(routes: FuzzRoute[], apiKey: string, authority: string): fc.Arbitrary<GeneratedRequest> {
  return fc.constantFrom(...routes).chain((route) =>
    fc.record({
      method: method(route.method),
      path: fc.oneof({ weight: 9, arbitrary: routePath(route) }, { weight: 1, arbitrary: garbagePath }),
      query: query(route),
      host: host(authority),
      auth: auth(apiKey),
      contentType: contentType(route.contentType),
      body: body(route),
      framing,
      extra: extraHeaders,
      pick: fc.nat(),
    }).map((r) => ({
      method: r.method,
      target: `${r.path}${r.query}`,
      headers: [...r.host, ...r.auth, ...(r.body ? r.contentType : []), ...r.extra],
      body: r.body,
      framing: r.framing,
      pick: r.pick,
    })),
  );
}
