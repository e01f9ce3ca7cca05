import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { sqliteOf, startTestApp, type TestApp } from './helpers/app.js';

const SECURITY = { 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY', 'cache-control': 'no-store' };

function expectSecurityHeaders(res: Response): void {
  for (const [name, value] of Object.entries(SECURITY)) expect(res.headers.get(name), name).toBe(value);
}

async function expectEnvelopeError(res: Response, status: number): Promise<string> {
  expect(res.status).toBe(status);
  expectSecurityHeaders(res);
  const body = (await res.json()) as { status: string; error: string };
  expect(body.status).toBe('error');
  expect(typeof body.error).toBe('string');
  return body.error;
}

/** Send raw bytes and collect everything the server answers until it closes or `waitMs` passes. */
function rawExchange(port: number, payload: string | Buffer, options: { end?: boolean; waitMs?: number } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(data);
    }, options.waitMs ?? 3000);
    socket.on('data', (chunk) => (data += chunk.toString('latin1')));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(data);
    });
    socket.on('error', reject);
    socket.write(payload);
    if (options.end) socket.end();
  });
}

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const echoRoute = (app: TestApp['app']) => {
  app.http.post('/api/v1/test-echo', {
    schema: { body: { type: 'object', required: ['message'], additionalProperties: false, properties: { message: { type: 'string' } } } },
  }, async (request) => ({ status: 'ok', data: request.body }));
  app.http.get('/api/v1/test-boom', async () => {
    throw new Error('database password=hunter2-internal exploded');
  });
};

describe('security headers and envelopes', () => {
  it('puts the three headers on 200, 401, 404, 405, 413, 415, 429 and 500 responses', async () => {
    t = await startTestApp({ config: { api: { rate_limit_rpm: 12 } }, beforeListen: echoRoute });
    const ok = await t.request('/api/v1/health');
    expect(ok.status).toBe(200);
    expectSecurityHeaders(ok);
    expect(await ok.json()).toEqual({ status: 'ok', data: { status: 'healthy', version: t.app.version } });

    await expectEnvelopeError(await fetch(`${t.url}/api/v1/health`), 401);
    await expectEnvelopeError(await t.request('/api/v1/no-such-route'), 404);
    const wrongMethod = await t.request('/api/v1/health', { method: 'DELETE' });
    await expectEnvelopeError(wrongMethod, 405);
    expect(wrongMethod.headers.get('allow')).toBe('GET, HEAD');
    const big = await t.request('/api/v1/test-echo', {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(await expectEnvelopeError(big, 413)).toMatch(/too large/);
    const text = await t.request('/api/v1/test-echo', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hi' });
    await expectEnvelopeError(text, 415);
    const boom = await t.request('/api/v1/test-boom');
    const message = await expectEnvelopeError(boom, 500);
    expect(message).toBe('Internal server error');
    expect(t.log.lines.some((l) => l.includes('exploded'))).toBe(true);
    expect(t.log.lines.some((l) => l.includes('hunter2-internal'))).toBe(false);

    let limited: Response | undefined;
    for (let i = 0; i < 12 && !limited; i++) {
      const res = await t.request('/api/v1/health');
      if (res.status === 429) limited = res;
    }
    expect(limited).toBeDefined();
    expect(await expectEnvelopeError(limited!, 429)).toBe('Rate limit exceeded');
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('answers every malformed body with an envelope', async () => {
    t = await startTestApp({ beforeListen: echoRoute });
    const post = (body: string | Buffer) =>
      t!.request('/api/v1/test-echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(await expectEnvelopeError(await post('[]'), 400)).toMatch(/body/);
    expect(await expectEnvelopeError(await post('null'), 400)).toMatch(/body/);
    expect(await expectEnvelopeError(await post('{"message": 5}'), 400)).toMatch(/message/);
    expect(await expectEnvelopeError(await post('{}'), 400)).toMatch(/"message" is required/);
    expect(await expectEnvelopeError(await post('{"message":"a","extra":1}'), 400)).toBe('field "extra" is not allowed');
    expect(await expectEnvelopeError(await post('{"message": "a"'), 400)).toMatch(/not valid JSON/);
    expect(await expectEnvelopeError(await post(Buffer.from([0x7b, 0x22, 0x6d, 0xff, 0xfe, 0x22, 0x7d])), 400)).toMatch(/UTF-8/);
    expect(await expectEnvelopeError(await post('{"message":"a","__proto__":{"polluted":1}}'), 400)).toBe('field "__proto__" is not allowed');
    expect(await expectEnvelopeError(await post('{"message":"a","constructor":{"prototype":{"x":1}}}'), 400)).toBe('field "constructor" is not allowed');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const good = await post('{"message":"héllo"}');
    expect(good.status).toBe(200);
    expect(await good.json()).toEqual({ status: 'ok', data: { message: 'héllo' } });
  });

  it('answers a truncated body with an envelope instead of dropping the connection', async () => {
    t = await startTestApp({ beforeListen: echoRoute, requestTimeoutMs: 500 });
    const head =
      `POST /api/v1/test-echo HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.apiKey}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"message":';
    const stalled = await rawExchange(t.app.port, head);
    expect(stalled).toMatch(/^HTTP\/1\.1 408/);
    expect(stalled).toContain('x-content-type-options: nosniff');
    expect(stalled).toContain('{"status":"error","error":"Request timed out","code":"AGENTD_REQUEST_TIMEOUT"}');

    // The client gives up half-way and half-closes: it still gets an answer.
    const halfClosed = await rawExchange(t.app.port, head, { end: true });
    expect(halfClosed).toMatch(/^HTTP\/1\.1 (400|408)/);
    expect(halfClosed).toContain('"status":"error"');

    const badUrl = await rawExchange(t.app.port, `GET /api/v1/%zz HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.apiKey}\r\n\r\n`);
    expect(badUrl).toMatch(/^HTTP\/1\.1 400/);
    expect(badUrl).toContain('x-content-type-options: nosniff');
    expect(badUrl).toContain('{"status":"error","error":"Invalid URL encoding","code":"AGENTD_BAD_REQUEST"}');

    const hostless = await rawExchange(t.app.port, `GET /api/v1/health HTTP/1.1\r\nAuthorization: Bearer ${t.apiKey}\r\nConnection: close\r\n\r\n`);
    expect(hostless).toMatch(/^HTTP\/1\.1 200/);
    expect(hostless).toContain('x-content-type-options: nosniff');

    const tunnel = await rawExchange(t.app.port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expect(tunnel).toMatch(/^HTTP\/1\.1 405/);
    expect(tunnel).toContain('x-frame-options: DENY');
    expect(tunnel).toContain('"code":"AGENTD_METHOD_NOT_ALLOWED"');

    const garbage = await rawExchange(t.app.port, 'THIS IS NOT HTTP\r\n\r\n');
    expect(garbage).toMatch(/^HTTP\/1\.1 400/);
    expect(garbage).toContain('"status":"error"');
    expect(garbage).toContain('"code":"AGENTD_BAD_REQUEST"');
    expect(garbage).toContain('x-frame-options: DENY');
  });
});

describe('authentication', () => {
  it('accepts Bearer and X-API-Key and refuses a wrong key of the same length', async () => {
    t = await startTestApp();
    expect((await fetch(`${t.url}/api/v1/status`, { headers: { authorization: `Bearer ${t.apiKey}` } })).status).toBe(200);
    expect((await fetch(`${t.url}/api/v1/status`, { headers: { 'x-api-key': t.apiKey } })).status).toBe(200);
    const wrong = t.apiKey.slice(0, -1) + (t.apiKey.endsWith('a') ? 'b' : 'a');
    expect(wrong.length).toBe(t.apiKey.length);
    await expectEnvelopeError(await fetch(`${t.url}/api/v1/status`, { headers: { authorization: `Bearer ${wrong}` } }), 401);
    await expectEnvelopeError(await fetch(`${t.url}/api/v1/status`, { headers: { 'x-api-key': wrong } }), 401);
    await expectEnvelopeError(await fetch(`${t.url}/api/v1/status`, { headers: { authorization: `Basic ${t.apiKey}` } }), 401);
  });

  it('refuses everything when the configured key is empty', async () => {
    t = await startTestApp({ config: { api: { api_key: '' } } });
    for (const path of ['/api/v1/health', '/api/v1/status', '/api/v1/openapi.json', '/nothing-here', '/']) {
      await expectEnvelopeError(await fetch(`${t.url}${path}`, { headers: { authorization: 'Bearer ' } }), 401);
      await expectEnvelopeError(await fetch(`${t.url}${path}`, { headers: { 'x-api-key': '' } }), 401);
    }
    expect(t.log.lines.some((l) => l.includes('api_key is empty'))).toBe(true);
  });

  it('audits failed key attempts, sampled per client', async () => {
    t = await startTestApp();
    for (let i = 0; i < 40; i++) await fetch(`${t.url}/api/v1/health`, { headers: { 'x-api-key': `wrong-${i}` } });
    const rows = sqliteOf(t.app).prepare("SELECT * FROM audit_events WHERE event_type = 'web.auth'").all() as { result: string; detail: string }[];
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThanOrEqual(3);
    expect(rows.every((r) => r.result === 'deny')).toBe(true);
    expect(rows.map((r) => r.detail).join()).not.toContain('wrong-');
  });
});

describe('rate limit', () => {
  it('refuses after rate_limit_rpm requests and recovers after the window', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    t = await startTestApp({ config: { api: { rate_limit_rpm: 5 } }, now: () => now });
    for (let i = 0; i < 5; i++) expect((await t.request('/api/v1/health')).status).toBe(200);
    const limited = await t.request('/api/v1/health');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('60');
    now += 30_000;
    expect((await t.request('/api/v1/health')).status).toBe(429);
    now += 30_001;
    expect((await t.request('/api/v1/health')).status).toBe(200);
    const audited = sqliteOf(t.app).prepare("SELECT count(*) AS n FROM audit_events WHERE event_type = 'web.rate_limit'").get() as { n: number };
    expect(audited.n).toBeGreaterThanOrEqual(1);
  });

  it('tracks at most 10,000 client IPs, evicting the oldest first', async () => {
    t = await startTestApp({ config: { api: { rate_limit_rpm: 2, trust_proxy: true } } });
    const from = (ip: string) => t!.request('/api/v1/health', { headers: { 'x-forwarded-for': ip } });
    expect((await from('203.0.113.1')).status).toBe(200);
    expect((await from('203.0.113.1')).status).toBe(200);
    expect((await from('203.0.113.1')).status).toBe(429);
    // 10,000 other addresses push the first one out of the table: it starts afresh.
    for (let i = 0; i < 10_000; i += 250) {
      await Promise.all(Array.from({ length: 250 }, (_, j) => from(`10.${((i + j) >> 16) & 255}.${((i + j) >> 8) & 255}.${(i + j) & 255}`)));
    }
    expect((await from('203.0.113.1')).status).toBe(200);
  });
});

describe('OpenAPI', () => {
  it('documents the registered routes and requires the key', async () => {
    t = await startTestApp();
    expect((await fetch(`${t.url}/api/v1/openapi.json`)).status).toBe(401);
    const doc = (await (await t.request('/api/v1/openapi.json')).json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/v1/health', '/api/v1/status']));
  });
});
