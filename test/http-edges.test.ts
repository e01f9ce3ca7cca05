import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { sqliteOf, startTestApp, type TestApp } from './helpers/app.js';

/**
 * The edge of the REST listener: requests Node or Fastify would answer on their own (an unmet
 * `Expect`, a URL that does not percent-decode, a request arriving while closing) go through the
 * pipeline like any other, in its order: headers → rate limit → authentication → the rest.
 */

const SECURITY = { 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY', 'cache-control': 'no-store' };

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Parse every response in `data` (Content-Length framed, as the pipeline's answers are). */
function parseResponses(data: string): RawResponse[] {
  const out: RawResponse[] = [];
  let rest = data;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end === -1) break;
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    out.push({ status: Number(statusLine!.split(' ')[1]), headers, body: rest.slice(end + 4, end + 4 + length) });
    rest = rest.slice(end + 4 + length);
  }
  return out;
}

/** One request over a fresh socket (`Connection: close`); resolves with the parsed answer. */
function raw(port: number, head: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (chunk) => (data += chunk.toString('latin1')));
    socket.on('close', () => {
      // Interim answers (100 Continue) come first; the final one is what counts.
      const [first] = parseResponses(data).filter((r) => r.status >= 200);
      if (first) resolve(first);
      else reject(new Error(`no response: ${JSON.stringify(data)}`));
    });
    socket.on('error', reject);
    socket.write(`${head}Host: x\r\nConnection: close\r\n\r\n`);
  });
}

function expectEnvelope(res: RawResponse, status: number, error?: string | RegExp): void {
  expect(res.status).toBe(status);
  for (const [name, value] of Object.entries(SECURITY)) expect(res.headers[name], name).toBe(value);
  const body = JSON.parse(res.body) as { status: string; error: string; code: string };
  expect(body.status).toBe('error');
  expect(body.code).toMatch(/^AGENTD_[A-Z_]+$/);
  if (error !== undefined) expect(body.error).toMatch(error);
}

async function expectFetchEnvelope(res: Response, status: number): Promise<string> {
  expect(res.status).toBe(status);
  for (const [name, value] of Object.entries(SECURITY)) expect(res.headers.get(name), name).toBe(value);
  const body = (await res.json()) as { status: string; error: string };
  expect(body.status).toBe('error');
  return body.error;
}

const auditRows = (t: TestApp, type: string) =>
  sqliteOf(t.app).prepare('SELECT result, action, detail FROM audit_events WHERE event_type = ? ORDER BY seq').all(type) as {
    result: string; action: string; detail: string;
  }[];

/** Rows are written in the background (refusals never wait for the audit); wait until they are there. */
async function waitForAudit(t: TestApp, type: string, count: number): Promise<ReturnType<typeof auditRows>> {
  for (let i = 0; i < 200; i++) {
    const rows = auditRows(t, type);
    if (rows.length >= count) return rows;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return auditRows(t, type);
}

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('Expect other than 100-continue', () => {
  it('is refused 417 with the envelope and headers, after the rate limit and authentication', async () => {
    t = await startTestApp({ config: { api: { rate_limit_rpm: 3 } } });
    const port = t.app.port;
    const anonymous = await raw(port, 'GET /api/v1/health HTTP/1.1\r\nExpect: foo\r\n');
    expectEnvelope(anonymous, 401, 'Unauthorized');

    const authorized = await raw(port, `GET /api/v1/health HTTP/1.1\r\nExpect: foo\r\nAuthorization: Bearer ${t.apiKey}\r\n`);
    expectEnvelope(authorized, 417, /Expect/);

    // The anonymous 401 counted in the failed-authentication window: the operator's has used one of
    // its three; the next two use the rest, and the fourth is rate limited before the Expect check.
    expect((await t.request('/api/v1/health')).status).toBe(200);
    expect((await t.request('/api/v1/health')).status).toBe(200);
    const limited = await raw(port, `GET /api/v1/health HTTP/1.1\r\nExpect: foo\r\nAuthorization: Bearer ${t.apiKey}\r\n`);
    expectEnvelope(limited, 429, 'Rate limit exceeded');
    expect(limited.headers['retry-after']).toBeDefined();
  });

  it('still lets Expect: 100-continue through', async () => {
    t = await startTestApp();
    const continued = await new Promise<string>((resolve, reject) => {
      const socket = connect(t!.app.port, '127.0.0.1');
      let data = '';
      socket.on('data', (chunk) => (data += chunk.toString('latin1')));
      socket.on('close', () => resolve(data));
      socket.on('error', reject);
      socket.write(`GET /api/v1/health HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nAuthorization: Bearer ${t!.apiKey}\r\nConnection: close\r\n\r\n`);
    });
    expect(continued).toMatch(/^HTTP\/1\.1 100 Continue\r\n/);
    const res = await raw(t.app.port, `GET /api/v1/health HTTP/1.1\r\nExpect: 100-continue\r\nAuthorization: Bearer ${t.apiKey}\r\n`);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ status: 'ok', data: { status: 'healthy', version: t.app.version } });
  });
});

describe('a URL that does not percent-decode', () => {
  it('is rate limited first: 20 such requests past the limit all get 429, and the flood is audited', async () => {
    t = await startTestApp({ config: { api: { rate_limit_rpm: 3 } } });
    for (let i = 0; i < 3; i++) expect((await t.request('/api/v1/health')).status).toBe(200);
    for (let i = 0; i < 20; i++) {
      const res = await raw(t.app.port, `GET /x%zz HTTP/1.1\r\nAuthorization: Bearer ${t.apiKey}\r\n`);
      expectEnvelope(res, 429, 'Rate limit exceeded');
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
    const rows = await waitForAudit(t, 'web.rate_limit', 1);
    expect(rows.length).toBeGreaterThanOrEqual(1);
    expect(rows[0]!.action).toBe('GET /x%zz');
  });

  it('is authenticated before it is refused: 401 without a key, audited with a wrong one, 400 with the key', async () => {
    t = await startTestApp();
    expectEnvelope(await raw(t.app.port, 'GET /x%zz HTTP/1.1\r\n'), 401, 'Unauthorized');
    expectEnvelope(await raw(t.app.port, 'GET /x%zz HTTP/1.1\r\nX-API-Key: not-the-key\r\n'), 401, 'Unauthorized');
    const rows = await waitForAudit(t, 'web.auth', 1);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ result: 'deny', action: 'GET /x%zz' });
    expectEnvelope(await raw(t.app.port, `GET /x%zz HTTP/1.1\r\nAuthorization: Bearer ${t.apiKey}\r\n`), 400, 'Invalid URL encoding');
  });
});

describe('trailing slash', () => {
  it('is not a route: 404 without Allow, while the path without it keeps its 405', async () => {
    t = await startTestApp();
    for (const method of ['GET', 'DELETE']) {
      const res = await t.request('/api/v1/status/', { method });
      expect(await expectFetchEnvelope(res, 404)).toBe('Not found');
      expect(res.headers.get('allow')).toBeNull();
    }
    const wrongMethod = await t.request('/api/v1/status', { method: 'DELETE' });
    expect(await expectFetchEnvelope(wrongMethod, 405)).toBe('Method not allowed');
    expect(wrongMethod.headers.get('allow')).toBe('GET, HEAD');
    expect((await t.request('/api/v1/status')).status).toBe(200);
  });
});

describe('every offered credential must be right', () => {
  const malformed = ['Bearer wrong extra', 'Basic dXNlcjpwYXNz', 'Bearer', 'bearer'];

  it('refuses a malformed Authorization header next to a valid X-API-Key', async () => {
    t = await startTestApp();
    expect((await fetch(`${t.url}/api/v1/status`, { headers: { 'x-api-key': t.apiKey } })).status).toBe(200);
    for (const authorization of malformed) {
      const res = await fetch(`${t.url}/api/v1/status`, { headers: { authorization, 'x-api-key': t.apiKey } });
      expect(await expectFetchEnvelope(res, 401), authorization).toBe('Unauthorized');
    }
    // With a valid Bearer key, a wrong X-API-Key is refused too; the same key twice is fine.
    const wrongHeader = await fetch(`${t.url}/api/v1/status`, { headers: { authorization: `Bearer ${t.apiKey}`, 'x-api-key': 'wrong' } });
    await expectFetchEnvelope(wrongHeader, 401);
    const emptyHeader = await fetch(`${t.url}/api/v1/status`, { headers: { authorization: `Bearer ${t.apiKey}`, 'x-api-key': '' } });
    await expectFetchEnvelope(emptyHeader, 401);
    const both = await fetch(`${t.url}/api/v1/status`, { headers: { authorization: `Bearer ${t.apiKey}`, 'x-api-key': t.apiKey } });
    expect(both.status).toBe(200);
    const rows = await waitForAudit(t, 'web.auth', 1);
    expect(rows.length).toBeGreaterThanOrEqual(1);
    expect(rows.every((r) => r.result === 'deny')).toBe(true);
    expect(rows.map((r) => r.detail).join()).not.toContain(t.apiKey);
  });

  it('refuses a malformed Authorization header next to a valid session cookie', async () => {
    t = await startTestApp();
    const login = await fetch(`${t.url}/login`, {
      method: 'POST', redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `api_key=${encodeURIComponent(t.apiKey)}`,
    });
    expect(login.status).toBe(303);
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    expect((await fetch(`${t.url}/api/v1/status`, { headers: { cookie } })).status).toBe(200);
    for (const authorization of malformed) {
      const res = await fetch(`${t.url}/api/v1/status`, { headers: { authorization, cookie } });
      expect(await expectFetchEnvelope(res, 401), authorization).toBe('Unauthorized');
    }
  });
});

describe('while closing', () => {
  it('answers a request that arrives on a busy connection 503 with the envelope, the headers and Connection: close', async () => {
    let entered!: () => void;
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    t = await startTestApp({
      beforeListen: (app) => {
        app.http.get('/api/v1/test-slow', async () => {
          entered();
          await released;
          return { status: 'ok', data: { slow: true } };
        });
      },
    });
    const socket: Socket = connect(t.app.port, '127.0.0.1');
    let data = '';
    socket.on('data', (chunk) => (data += chunk.toString('latin1')));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    const head = (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t!.apiKey}\r\n\r\n`;
    socket.write(head('/api/v1/test-slow'));
    await inHandler;

    const closing = t.app.close();
    // The listener stops accepting once shutdown has reached the HTTP server.
    while (t.app.http.server.listening) await new Promise((resolve) => setImmediate(resolve));
    socket.write(head('/api/v1/health'));
    release();
    await closing;
    await closed;

    const [first, second] = parseResponses(data);
    expect(first!.status).toBe(200);
    expect(JSON.parse(first!.body)).toEqual({ status: 'ok', data: { slow: true } });
    expectEnvelope(second!, 503, 'The service is shutting down');
    expect(second!.headers.connection).toBe('close');
    expect(second!.headers['content-type']).toBe('application/json; charset=utf-8');
  });
});

describe('GET /healthz', () => {
  it('answers {"status":"ok"} without a key, revealing nothing else', async () => {
    t = await startTestApp();
    const res = await fetch(`${t.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('{"status":"ok"}');
    for (const [name, value] of Object.entries(SECURITY)) expect(res.headers.get(name), name).toBe(value);
    expect((await fetch(`${t.url}/healthz`, { method: 'HEAD' })).status).toBe(200);
    // A key that is offered must still be right.
    await expectFetchEnvelope(await fetch(`${t.url}/healthz`, { headers: { 'x-api-key': 'wrong' } }), 401);
    expect((await t.request('/healthz')).status).toBe(200);
    // The versioned health endpoint stays authenticated.
    await expectFetchEnvelope(await fetch(`${t.url}/api/v1/health`), 401);
    const doc = (await (await t.request('/api/v1/openapi.json')).json()) as { paths: Record<string, { get: { security?: unknown } }> };
    expect(doc.paths['/healthz']!.get.security).toEqual([]);
  });

  it('is rate limited like every request', async () => {
    t = await startTestApp({ config: { api: { rate_limit_rpm: 2 } } });
    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
    const limited = await fetch(`${t.url}/healthz`);
    expect(await expectFetchEnvelope(limited, 429)).toBe('Rate limit exceeded');
  });

  it('is 401 like everything else when the configured key is empty', async () => {
    t = await startTestApp({ config: { api: { api_key: '' } } });
    expect(await expectFetchEnvelope(await fetch(`${t.url}/healthz`), 401)).toBe('Unauthorized');
  });
});

describe('rate-limit memory', () => {
  it('forgets stale clients before a blocked one whose window is still live', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    t = await startTestApp({ config: { api: { rate_limit_rpm: 1, trust_proxy: true } }, now: () => now });
    const from = (ip: string) => t!.request('/api/v1/health', { headers: { 'x-forwarded-for': ip } }).then((r) => r.status);
    const others = Array.from({ length: 9_999 }, (_, i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
    const all = async (expected: number) => {
      for (let i = 0; i < others.length; i += 500) {
        const statuses = await Promise.all(others.slice(i, i + 500).map(from));
        expect(statuses.every((s) => s === expected)).toBe(true);
      }
    };
    await all(200); // 9,999 clients use their one request
    now += 30_000;
    expect(await from('203.0.113.7')).toBe(200);
    expect(await from('203.0.113.7')).toBe(429); // blocked until +90 s; the table now holds 10,000
    now += 20_000;
    await all(429); // seen again, refused: their windows still end at +60 s
    now += 11_000;
    // The others are stale, the blocked client is not, though it is the least recently seen.
    for (let i = 0; i < 5; i++) expect(await from(`198.51.100.${i}`)).toBe(200);
    expect(await from('203.0.113.7')).toBe(429);
    expect(t.log.lines.some((l) => l.includes('rate limiter is tracking its maximum'))).toBe(false);
    // Filling the 10,000-client table takes 20,000 requests: seconds on a quiet machine, far more on a busy CI one.
  }, 300_000);
});
