import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';

/**
 * The authenticated health check is answered before Fastify (src/http/fixed-answers.ts). Each
 * request here is sent twice: over a real socket (where the fast path may answer it) and through
 * Fastify alone (`inject`, which never reaches the fast path); both answers must be the same, as
 * must the request line, the metrics and the rate-limit count.
 */
let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Headers the listener adds on a real socket only (inject has no connection). */
const CONNECTION_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

function comparable(headers: Record<string, string | string[] | number | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!CONNECTION_HEADERS.has(name.toLowerCase()) && value !== undefined) out[name.toLowerCase()] = String(value);
  }
  return out;
}

/** A raw request: the path is sent exactly as written (fetch would normalise it). */
function overSocket(url: string, method: string, path: string, headers: Record<string, string>): Promise<Answer & { all: Record<string, string> }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, method, path, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        const all = Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, String(v)]));
        resolve({ status: res.statusCode ?? 0, headers: comparable(res.headers), body, all });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

async function throughFastify(app: TestApp, method: string, path: string, headers: Record<string, string>): Promise<Answer> {
  const res = await app.app.http.inject({ method: method as 'GET', url: path, headers });
  return { status: res.statusCode, headers: comparable(res.headers), body: res.body };
}

/** Every request line logged for `id`, without its time and duration. */
function requestLines(app: TestApp, id: string): string[] {
  return app.log.lines
    .filter((line) => / info request /.test(line) && line.includes(`request_id=${id} `))
    .map((line) => line.replace(/^\S+ /, '').replace(/ duration_ms=\S+/, ''));
}

async function healthCount(app: TestApp, method = 'GET'): Promise<number> {
  const text = await (await app.request('/metrics')).text();
  const line = text.split('\n').find((l) => l.startsWith(`agentd_http_requests_total{route="/api/v1/health",method="${method}",status="200"}`));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

const headCount = (app: TestApp) => healthCount(app, 'HEAD');

describe('fixed answers before Fastify', () => {
  it('answer an authenticated GET /api/v1/health exactly as Fastify does: headers, body, log line and metrics', async () => {
    // Counts the requests Fastify's hooks saw: the fast path's must not be among them.
    const seenByFastify: string[] = [];
    t = await startTestApp({
      beforeListen: (app) => {
        app.http.addHook('onRequest', async (request) => {
          seenByFastify.push(request.id);
        });
      },
    });
    const key = { authorization: `Bearer ${t.apiKey}` };
    const before = await healthCount(t);
    seenByFastify.length = 0;
    const fast = await overSocket(t.url, 'GET', '/api/v1/health', { ...key, 'x-request-id': 'same-id' });
    expect(seenByFastify).toEqual([]);
    const normal = await throughFastify(t, 'GET', '/api/v1/health', { ...key, 'x-request-id': 'same-id' });
    expect(seenByFastify).toEqual(['same-id']);
    expect(fast.status).toBe(200);
    expect(fast.headers).toEqual(normal.headers);
    expect(fast.headers).toMatchObject({
      'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY', 'cache-control': 'no-store', 'x-request-id': 'same-id',
      'content-type': 'application/json; charset=utf-8',
    });
    expect(fast.body).toBe(normal.body);
    expect(JSON.parse(fast.body)).toMatchObject({ data: { status: 'healthy' } });
    // A real socket keeps the connection as a bare node:http server would.
    expect(fast.all).toMatchObject({ connection: 'keep-alive' });
    expect(fast.all.date).toBeDefined();
    // Two answered requests: two identical lines, two counts.
    const lines = requestLines(t, 'same-id');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe('info request request_id=same-id method=GET route=/api/v1/health status=200');
    expect(lines[1]).toBe(lines[0]);
    expect(await healthCount(t)).toBe(before + 2);
    // Without an offered id, a fresh one is generated and logged, as Fastify does.
    const generated = await overSocket(t.url, 'GET', '/api/v1/health', key);
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(requestLines(t, generated.headers['x-request-id']!)).toHaveLength(1);
  });

  it('answer an authenticated HEAD /api/v1/health as Fastify does: the headers of the GET, no body, its own line and count', async () => {
    const seenByFastify: string[] = [];
    t = await startTestApp({
      beforeListen: (app) => {
        app.http.addHook('onRequest', async (request) => {
          seenByFastify.push(request.id);
        });
      },
    });
    const key = { authorization: `Bearer ${t.apiKey}`, 'x-request-id': 'head-id' };
    const before = await headCount(t);
    seenByFastify.length = 0;
    const fast = await overSocket(t.url, 'HEAD', '/api/v1/health', key);
    expect(seenByFastify).toEqual([]);
    const normal = await throughFastify(t, 'HEAD', '/api/v1/health', key);
    expect(seenByFastify).toEqual(['head-id']);
    const get = await overSocket(t.url, 'GET', '/api/v1/health', key);
    expect(fast.status).toBe(200);
    expect(fast.headers).toEqual(normal.headers);
    expect(fast.headers).toEqual(get.headers);
    expect(fast.body).toBe('');
    expect(normal.body).toBe('');
    expect(fast.all).toMatchObject({ connection: 'keep-alive' });
    const lines = requestLines(t, 'head-id').filter((line) => line.includes('method=HEAD'));
    expect(lines).toEqual(['info request request_id=head-id method=HEAD route=/api/v1/health status=200', lines[0]]);
    expect(await headCount(t)).toBe(before + 2);
  });

  it('leave every other request to Fastify, which answers it as it always has', async () => {
    t = await startTestApp();
    const key = { authorization: `Bearer ${t.apiKey}` };
    // GET /api/v1/health with other credentials, then other requests with the right key.
    const credentials: [Record<string, string>, number][] = [
      [{ authorization: 'Bearer wrong-key' }, 401], [{}, 401], [{ authorization: `Basic ${t.apiKey}` }, 401],
      [{ 'x-api-key': t.apiKey }, 200], [{ ...key, 'x-api-key': 'other' }, 401],
    ];
    const requests: [string, string, number][] = [
      ['HEAD', '/api/v1/health?verbose=1', 200], ['POST', '/api/v1/health', 405], ['GET', '/api/v1/health?verbose=1', 200],
      ['GET', '/api/v1/health/', 404], ['GET', '/API/V1/health', 404], ['GET', '/api/v1/HEALTH', 404],
      ['GET', '/api/v1/%68ealth', 200], ['GET', '/api/v1/health%00', 400], ['GET', '/api/v1/health%zz', 400],
      ['GET', '//api/v1/health', 404], ['GET', '/api/v1/__proto__', 404], ['GET', '/__proto__', 404], ['GET', '/api/v1/health#x', 200],
    ];
    const cases = [
      ...credentials.map(([headers, status]) => ['GET', '/api/v1/health', headers, status] as const),
      ...requests.map(([method, path, status]) => [method, path, key, status] as const),
    ];
    for (const [index, [method, path, headers, status]] of cases.entries()) {
      const id = { 'x-request-id': `case-${index}` };
      const socket = await overSocket(t.url, method, path, { ...headers, ...id });
      const normal = await throughFastify(t, method, path, { ...headers, ...id });
      const label = `${method} ${path} ${JSON.stringify(headers)}`;
      expect(socket.status, label).toBe(status);
      expect(socket.status, label).toBe(normal.status);
      expect(socket.headers, label).toEqual(normal.headers);
      expect(socket.body, label).toBe(normal.body);
      expect(socket.headers['x-frame-options'], label).toBe('DENY');
      // One line from each path, the same (a URL that does not decode is logged by neither).
      const lines = requestLines(t, id['x-request-id']);
      expect(lines, label).toHaveLength(path.includes('%zz') ? 0 : 2);
      expect(lines[0], label).toBe(lines[1]);
    }
  });

  it('leave a path with dot segments to Fastify (inject would resolve them, so it is checked alone)', async () => {
    t = await startTestApp();
    const answer = await overSocket(t.url, 'GET', '/api/v1/./health', { authorization: `Bearer ${t.apiKey}` });
    expect(answer.status).toBe(404);
    expect(answer.headers['x-frame-options']).toBe('DENY');
    expect(JSON.parse(answer.body)).toMatchObject({ status: 'error', code: 'AGENTD_NOT_FOUND' });
  });

  it('count each request once in the rate limit, and refuse past it as Fastify does', async () => {
    t = await startTestApp({ config: { api: { rate_limit_rpm: 3 } } });
    const key = { authorization: `Bearer ${t.apiKey}` };
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await overSocket(t.url, 'GET', '/api/v1/health', key)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = await overSocket(t.url, 'GET', '/api/v1/health', { ...key, 'x-request-id': 'limited' });
    const normal = await throughFastify(t, 'GET', '/api/v1/health', { ...key, 'x-request-id': 'limited' });
    expect(limited.status).toBe(429);
    expect(limited.headers).toEqual(normal.headers);
    expect(limited.headers['retry-after']).toBeDefined();
    expect(limited.body).toBe(normal.body);
  });

  it('refuse an unmet Expect after authentication, as Fastify does', async () => {
    t = await startTestApp();
    const headers = { authorization: `Bearer ${t.apiKey}`, expect: 'something-else', 'x-request-id': 'expect' };
    const socket = await overSocket(t.url, 'GET', '/api/v1/health', headers);
    expect(socket.status).toBe(417);
    expect(socket.headers['x-request-id']).toBe('expect');
    expect(socket.headers['x-frame-options']).toBe('DENY');
  });
});
