import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { contentType, extraHeaders, framing, host, method, type GeneratedRequest } from './request-parts.js';
import { hostileString, jsonValueText, notAnObjectBody, objectText, oversizeBody } from './values.js';

/** Requests for the webhook listener: POST / with a signed JSON prompt, and every way to get that wrong. */

type Signer = (body: Buffer) => [string, string][];

/** X-Service-Signature: right (over the exact bytes sent), missing, wrong, malformed, repeated. */
function signature(secret: string): fc.Arbitrary<Signer> {
  const hmac = (body: Buffer) => createHmac('sha256', secret).update(body).digest('hex');
  const header = (value: string): [string, string] => ['X-Service-Signature', value];
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant<Signer>((body) => [header(`sha256=${hmac(body)}`)]) },
    { weight: 2, arbitrary: fc.constant<Signer>(() => []) },
    {
      weight: 4,
      arbitrary: fc.constantFrom<Signer>(
        (body) => [header(`sha256=${hmac(body).toUpperCase()}`)],
        (body) => [header(`sha1=${hmac(body)}`)],
        (body) => [header(hmac(body))],
        (body) => [header(`sha256=${hmac(body)} `)],
        (body) => [header(`sha256=${hmac(body).slice(0, -1)}`)],
        (body) => [header(`sha256=${hmac(body)}00`)],
        () => [header('sha256=')],
        () => [header(`sha256=${'zz'.repeat(32)}`)],
        () => [header(`sha256=${'0'.repeat(64)}`)],
        (body) => [header(`sha256=${hmac(body)}`), header('sha256=00')],
        (body) => [header('sha256=00'), header(`sha256=${hmac(body)}`)],
      ),
    },
  );
}

const prompt = fc.oneof(
  { weight: 30, arbitrary: fc.constantFrom('hello', 'what is 2+3?').map((s) => JSON.stringify(s)) },
  { weight: 20, arbitrary: hostileString.map((s) => JSON.stringify(s)) },
  { weight: 20, arbitrary: jsonValueText },
  { weight: 1, arbitrary: fc.constant(JSON.stringify('p'.repeat(32_001))) },
);
const sender = fc.oneof(hostileString.map((s) => JSON.stringify(s)), jsonValueText, fc.constant(JSON.stringify('s'.repeat(200))));

const payload: fc.Arbitrary<Buffer> = objectText(
  fc.oneof(
    { weight: 4, arbitrary: fc.tuple(fc.tuple(fc.constant('prompt'), prompt), fc.option(fc.tuple(fc.constant('sender'), sender))).map(([p, s]) => (s ? [p, s] : [p])) },
    {
      weight: 3,
      arbitrary: fc.array(fc.oneof(
        fc.tuple(fc.constant('prompt'), prompt),
        fc.tuple(fc.constant('sender'), sender),
        fc.tuple(hostileString, jsonValueText),
      ), { maxLength: 4 }),
    },
  ),
).map((t) => Buffer.from(t));

const path = fc.oneof(
  { weight: 20, arbitrary: fc.constant('/') },
  { weight: 1, arbitrary: fc.constantFrom('/x', '//', '/?a=1&a=2', '/?prompt=hi', '*', '/%zz', `/${'a'.repeat(5_000)}`, '/api/v1/health') },
);

export function webhookRequest(secret: string, authority: string): fc.Arbitrary<GeneratedRequest> {
  return fc.record({
    method: method('POST'),
    path,
    host: host(authority),
    contentType: contentType('application/json'),
    // An oversize body is one in 360: each costs a few MiB on the wire.
    body: fc.oneof({ weight: 280, arbitrary: payload }, { weight: 60, arbitrary: notAnObjectBody }, { weight: 20, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: oversizeBody }),
    signature: signature(secret),
    framing,
    extra: extraHeaders,
  }).map((r) => ({
    method: r.method,
    target: r.path,
    // No placeholders in webhook bodies: the signature can be computed over the bytes as generated.
    headers: [...r.host, ...r.contentType, ...r.signature(r.body ?? Buffer.alloc(0)), ...r.extra],
    body: r.body,
    framing: r.framing,
    pick: 0,
  }));
}
