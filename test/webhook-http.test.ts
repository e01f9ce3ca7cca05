import { request, type IncomingHttpHeaders } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../src/log.js';
import { computeSignature } from '../src/channels/webhook/signature.js';
import { startChannel, stopChannels } from './helpers/webhook.js';

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One request on a fresh connection; Content-Length is set from the body unless given. */
function send(
  port: number,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<Reply> {
  const { method = 'POST', body } = options;
  const headers: Record<string, string> = { ...options.headers };
  if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-length')) {
    headers['content-length'] = String(Buffer.byteLength(body));
  }
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path: '/', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    });
    // The server may answer and close before an oversized body is fully written.
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    req.end(body);
  });
}

const json = { 'content-type': 'application/json' };
const postJson = (port: number, body: string | Buffer, headers: Record<string, string> = {}) =>
  send(port, { body, headers: { ...json, ...headers } });

afterEach(stopChannels);

function expectEnvelope(reply: Reply, status: number, error?: string): void {
  expect(reply.status).toBe(status);
  expect(reply.headers['x-content-type-options']).toBe('nosniff');
  expect(reply.headers['x-frame-options']).toBe('DENY');
  expect(reply.headers['cache-control']).toBe('no-store');
  expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
  const parsed = JSON.parse(reply.body) as { status: string; error: string };
  expect(parsed.status).toBe('error');
  expect(typeof parsed.error).toBe('string');
  if (error !== undefined) expect(parsed.error).toBe(error);
}

describe('webhook channel: accepted requests', () => {
  it('answers 202 {"status":"queued"} with the security headers and queues the message', async () => {
    const channel = await startChannel();
    const reply = await postJson(channel.port, '{"prompt":"summarise the build log","sender":"ci-bot"}', {
      'user-agent': 'ci/2.0',
      'x-request-id': 'req-42',
      'x-unrelated': 'dropped',
    });
    expect(reply.status).toBe(202);
    expect(JSON.parse(reply.body)).toEqual({ status: 'queued' });
    expect(reply.headers['x-content-type-options']).toBe('nosniff');
    expect(reply.headers['x-frame-options']).toBe('DENY');
    expect(reply.headers['cache-control']).toBe('no-store');

    const message = channel.receive();
    expect(message).toMatchObject({
      content: 'summarise the build log',
      sender: 'ci-bot',
      metadata: {
        webhook_headers: { 'Content-Type': 'application/json', 'User-Agent': 'ci/2.0', 'X-Request-Id': 'req-42' },
      },
    });
    expect(Object.keys(message?.metadata.webhook_headers ?? {}).sort()).toEqual(['Content-Type', 'User-Agent', 'X-Request-Id']);
    expect(new Date(message?.received_at ?? '').toISOString()).toBe(message?.received_at);
    expect(channel.receive()).toBeUndefined();
  });

  it('sanitises the sender and defaults it to webhook', async () => {
    const channel = await startChannel();
    await postJson(channel.port, '{"prompt":"a","sender":"<img src=x onerror=alert(1)>"}');
    await postJson(channel.port, '{"prompt":"b"}');
    await postJson(channel.port, '{"prompt":"c","sender":"$$$"}');
    expect([channel.receive()?.sender, channel.receive()?.sender, channel.receive()?.sender]).toEqual([
      'img srcx onerroralert1',
      'webhook',
      'webhook',
    ]);
  });

  it('accepts exactly application/json and refuses parameters and other cases with 415', async () => {
    const channel = await startChannel();
    for (const type of ['application/json; charset=utf-8', 'Application/JSON', 'application/json;charset="UTF-8"', 'APPLICATION/json']) {
      const reply = await send(channel.port, { body: '{"prompt":"x"}', headers: { 'content-type': type } });
      expect(reply.status, type).toBe(415);
      expect(JSON.parse(reply.body), type).toEqual({ status: 'error', error: 'Content-Type must be application/json', code: 'AGENTD_UNSUPPORTED_MEDIA_TYPE' });
      expect(reply.headers['x-content-type-options'], type).toBe('nosniff');
    }
    expect(channel.receive()).toBeUndefined();
    expect((await send(channel.port, { body: '{"prompt":"x"}', headers: { 'content-type': 'application/json' } })).status).toBe(202);
    expect(channel.receive()?.content).toBe('x');
  });

  it('keeps the signature header in the metadata when a secret is set', async () => {
    const channel = await startChannel({ secret: 's3cret' });
    const body = '{"prompt":"x"}';
    const signature = computeSignature('s3cret', body);
    expect((await postJson(channel.port, body, { 'x-service-signature': signature })).status).toBe(202);
    expect(channel.receive()?.metadata.webhook_headers['X-Service-Signature']).toBe(signature);
  });
});

describe('webhook channel: each refusal', () => {
  it.each(['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'])('405 with Allow: POST for %s', async (method) => {
    const channel = await startChannel();
    const reply = await send(channel.port, { method, ...(method === 'GET' || method === 'OPTIONS' ? {} : { body: '{}' }) });
    expectEnvelope(reply, 405, 'Method not allowed');
    expect(reply.headers.allow).toBe('POST');
  });

  it('405 with Allow: POST and the security headers for HEAD (no body, as HEAD requires)', async () => {
    const channel = await startChannel();
    const reply = await send(channel.port, { method: 'HEAD' });
    expect(reply.status).toBe(405);
    expect(reply.headers.allow).toBe('POST');
    expect(reply.headers['x-frame-options']).toBe('DENY');
    expect(reply.body).toBe('');
  });

  it('429 with Retry-After: 60 once a client IP is over the limit, per IP', async () => {
    const channel = await startChannel({ rateLimitPerMinute: 3, trustProxy: true });
    const from = (ip: string) => postJson(channel.port, '{"prompt":"x"}', { 'x-forwarded-for': ip });
    for (let i = 0; i < 3; i++) expect((await from('203.0.113.7')).status).toBe(202);
    const refused = await from('203.0.113.7');
    expectEnvelope(refused, 429, 'Rate limit exceeded');
    expect(refused.headers['retry-after']).toBe('60');
    expect((await from('203.0.113.8')).status).toBe(202);
  });

  it('counts requests from the TCP peer, ignoring X-Forwarded-For, unless trustProxy is on', async () => {
    const channel = await startChannel({ rateLimitPerMinute: 2 });
    expect((await postJson(channel.port, '{"prompt":"x"}', { 'x-forwarded-for': '198.51.100.1' })).status).toBe(202);
    expect((await postJson(channel.port, '{"prompt":"x"}', { 'x-forwarded-for': '198.51.100.2' })).status).toBe(202);
    expect((await postJson(channel.port, '{"prompt":"x"}', { 'x-forwarded-for': '198.51.100.3' })).status).toBe(429);
  });

  it('slides the window: a refused client is accepted again once 60 s have passed', async () => {
    let clock = 1_700_000_000_000;
    const channel = await startChannel({ rateLimitPerMinute: 1, now: () => clock });
    expect((await postJson(channel.port, '{"prompt":"x"}')).status).toBe(202);
    clock += 30_000;
    expect((await postJson(channel.port, '{"prompt":"x"}')).status).toBe(429);
    clock += 31_000;
    expect((await postJson(channel.port, '{"prompt":"x"}')).status).toBe(202);
  });

  it.each([
    ['text/plain', 'text/plain'],
    ['a +json suffix', 'application/vnd.api+json'],
    ['application/json-patch+json', 'application/json-patch+json'],
    ['a form', 'application/x-www-form-urlencoded'],
  ])('415 for %s', async (_name, type) => {
    const channel = await startChannel();
    expectEnvelope(await send(channel.port, { body: '{"prompt":"x"}', headers: { 'content-type': type } }), 415);
    expect(channel.pending).toBe(0);
  });

  it('415 when Content-Type is missing', async () => {
    const channel = await startChannel();
    expectEnvelope(await send(channel.port, { body: '{"prompt":"x"}' }), 415, 'Content-Type must be application/json');
  });

  it('413 for a declared body over 1 MiB, before any of it is read', async () => {
    const channel = await startChannel();
    const reply = await postJson(channel.port, Buffer.alloc(2 * 1024 * 1024, 0x20));
    expectEnvelope(reply, 413, 'Request body too large (limit 1 MiB)');
    expect(reply.headers.connection).toBe('close');
  });

  it('401 for a missing or wrong signature when a secret is set', async () => {
    const channel = await startChannel({ secret: 's3cret' });
    const body = '{"prompt":"x"}';
    expectEnvelope(await postJson(channel.port, body), 401, 'Missing X-Service-Signature');
    expectEnvelope(await postJson(channel.port, body, { 'x-service-signature': computeSignature('wrong', body) }), 401);
    expectEnvelope(await postJson(channel.port, body, { 'x-service-signature': 'sha256=abc' }), 401);
    expectEnvelope(await postJson(channel.port, body, { 'x-service-signature': computeSignature('s3cret', `${body} `) }), 401);
    expect(channel.pending).toBe(0);
  });

  it('does not ask for a signature when no secret is set', async () => {
    const channel = await startChannel();
    expect((await postJson(channel.port, '{"prompt":"x"}', { 'x-service-signature': 'sha256=00' })).status).toBe(202);
  });

  it.each([
    ['an array', '[]', 'Request body must be a JSON object'],
    ['null', 'null', 'Request body must be a JSON object'],
    ['a number', '5', 'Request body must be a JSON object'],
    ['malformed JSON', '{"prompt":', 'Request body is not valid JSON'],
    ['an empty body', '', 'Request body is not valid JSON'],
    ['a numeric prompt', '{"prompt":5}', 'field "prompt" must be a string'],
    ['a missing prompt', '{"sender":"a"}', 'field "prompt" is required'],
    ['an empty prompt', '{"prompt":""}', 'field "prompt" must not be empty'],
  ])('400 for %s', async (_name, body, error) => {
    const channel = await startChannel();
    expectEnvelope(await postJson(channel.port, body), 400, error);
    expect(channel.pending).toBe(0);
  });

  it('400 for a body that is not valid UTF-8', async () => {
    const channel = await startChannel();
    const body = Buffer.concat([Buffer.from('{"prompt":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    expectEnvelope(await postJson(channel.port, body), 400, 'Request body is not valid UTF-8');
  });

  it('413 for a prompt over 32,000 characters; exactly 32,000 is accepted', async () => {
    const channel = await startChannel();
    expect((await postJson(channel.port, JSON.stringify({ prompt: 'p'.repeat(32_000) }))).status).toBe(202);
    expectEnvelope(await postJson(channel.port, JSON.stringify({ prompt: 'p'.repeat(32_001) })), 413);
  });
});

describe('webhook channel: check order', () => {
  it('a GET over the rate limit gets 405, and does not spend the budget', async () => {
    const channel = await startChannel({ rateLimitPerMinute: 1 });
    expect((await postJson(channel.port, '{"prompt":"x"}')).status).toBe(202);
    expect((await postJson(channel.port, '{"prompt":"x"}')).status).toBe(429);
    expectEnvelope(await send(channel.port, { method: 'GET' }), 405);
  });

  it('GETs do not count against the rate limit', async () => {
    const channel = await startChannel({ rateLimitPerMinute: 1 });
    for (let i = 0; i < 3; i++) expect((await send(channel.port, { method: 'GET' })).status).toBe(405);
    expect((await postJson(channel.port, '{"prompt":"x"}')).status).toBe(202);
  });

  it('429 comes before 415', async () => {
    const channel = await startChannel({ rateLimitPerMinute: 1 });
    expect((await postJson(channel.port, '{"prompt":"x"}')).status).toBe(202);
    expect((await send(channel.port, { body: '{"prompt":"x"}', headers: { 'content-type': 'text/plain' } })).status).toBe(429);
  });

  it('415 comes before the size check', async () => {
    const channel = await startChannel();
    const reply = await send(channel.port, { body: Buffer.alloc(2 * 1024 * 1024), headers: { 'content-type': 'text/plain' } });
    expect(reply.status).toBe(415);
  });

  it('a wrong signature on an oversized body gets 413, not 401', async () => {
    const channel = await startChannel({ secret: 's3cret' });
    const reply = await postJson(channel.port, Buffer.alloc(1024 * 1024 + 1, 0x20), { 'x-service-signature': 'sha256=00' });
    expectEnvelope(reply, 413);
  });

  it('a wrong signature on malformed JSON gets 401, not 400', async () => {
    const channel = await startChannel({ secret: 's3cret' });
    expect((await postJson(channel.port, '[', { 'x-service-signature': computeSignature('other', '[') })).status).toBe(401);
  });

  it('a wrong signature on an over-long prompt gets 401, not 413', async () => {
    const channel = await startChannel({ secret: 's3cret' });
    const body = JSON.stringify({ prompt: 'p'.repeat(32_001) });
    expect((await postJson(channel.port, body)).status).toBe(401);
  });
});

describe('webhook channel: unexpected failures', () => {
  it('answers 500 in the envelope when something throws, logs no request content, and keeps serving', async () => {
    let broken = false;
    const log = createMemoryLogger();
    const channel = await startChannel({
      log,
      now: () => {
        if (broken) throw new Error('clock unavailable');
        return Date.now();
      },
    });
    broken = true;
    expectEnvelope(await postJson(channel.port, '{"prompt":"very private words"}'), 500, 'Internal server error');
    expect(log.lines.some((line) => line.includes('unexpected error'))).toBe(true);
    expect(log.lines.join('\n')).not.toContain('very private words');
    broken = false;
    expect((await postJson(channel.port, '{"prompt":"x"}')).status).toBe(202);
  });
});
