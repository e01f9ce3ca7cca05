import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventSource } from 'eventsource';
import { afterEach, describe, expect, it } from 'vitest';
import { parseSse, rawGet } from './helpers/agent.js';
import { sqliteOf, startTestApp, type TestApp, type TestAppOptions } from './helpers/app.js';
import { randomToken } from '../src/security/ids/tokens.js';

/**
 * Browser sessions over real HTTP: the login form, the cookie it sets, CSRF on cookie-authenticated
 * unsafe requests, logout, the TTL, and the run event stream with nothing but the cookie.
 */
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function app(options: TestAppOptions = {}): Promise<TestApp> {
  const t = await startTestApp(options);
  cleanups.push(() => t.close());
  return t;
}

const COOKIE = 'service_operator_session';
const BASE_HEADERS = { 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY', 'cache-control': 'no-store' };

function expectSecurityHeaders(res: Response, html = false): void {
  for (const [name, value] of Object.entries(BASE_HEADERS)) expect(res.headers.get(name), name).toBe(value);
  if (!html) return;
  expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  const csp = res.headers.get('content-security-policy') ?? '';
  for (const directive of ["default-src 'self'", "form-action 'self'", "frame-ancestors 'none'", "base-uri 'none'"]) {
    expect(csp).toContain(directive);
  }
}

/** A request with no API key: only what the caller passes. Redirects are returned, not followed. */
function anon(t: TestApp, path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${t.url}${path}`, { redirect: 'manual', ...init });
}

function postLogin(t: TestApp, apiKey: string, headers: Record<string, string> = {}): Promise<Response> {
  return anon(t, '/login', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ api_key: apiKey }).toString(),
  });
}

interface Login {
  /** `name=token`, ready for a Cookie header. */
  cookie: string;
  token: string;
  setCookie: string;
  csrf: string;
}

/** Logs in through the form and reads the CSRF token from the page at `/`, as a browser would. */
async function login(t: TestApp, headers: Record<string, string> = {}): Promise<Login> {
  const res = await postLogin(t, t.apiKey, headers);
  expect(res.status).toBe(303);
  const setCookie = res.headers.getSetCookie()[0] ?? '';
  const token = /^[^=]+=([^;]*)/.exec(setCookie)?.[1] ?? '';
  const cookie = `${COOKIE}=${token}`;
  const page = await anon(t, '/', { headers: { cookie } });
  expect(page.status).toBe(200);
  const csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(await page.text())?.[1] ?? '';
  return { cookie, token, setCookie, csrf };
}

function auditRows(t: TestApp, eventType: string): { result: string; detail: string; source: string }[] {
  return sqliteOf(t.app).prepare('SELECT * FROM audit_events WHERE event_type = ? ORDER BY rowid').all(eventType) as {
    result: string; detail: string; source: string;
  }[];
}

const createSession = (t: TestApp, headers: Record<string, string>) =>
  anon(t, '/api/v1/sessions', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' });

describe('login', () => {
  it('sets the session cookie with exactly HttpOnly, SameSite=Strict, Path=/ and Max-Age=ttl, and the cookie authenticates', async () => {
    const t = await app({ config: { api: { web_session_ttl_seconds: 3600 } } });
    const res = await postLogin(t, t.apiKey);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/');
    expectSecurityHeaders(res);
    const cookies = res.headers.getSetCookie();
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatch(new RegExp(`^${COOKIE}=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=/; Max-Age=3600$`));
    const cookie = cookies[0]!.split(';')[0]!;

    const status = await anon(t, '/api/v1/status', { headers: { cookie } });
    expect(status.status).toBe(200);
    expect(((await status.json()) as { status: string }).status).toBe('ok');
    // Other cookies around ours do not get in the way.
    expect((await anon(t, '/api/v1/status', { headers: { cookie: `theme=dark; ${cookie}; lang=en` } })).status).toBe(200);
    expect((await anon(t, '/api/v1/status')).status).toBe(401);

    const allowed = auditRows(t, 'web.login');
    expect(allowed.map((r) => r.result)).toEqual(['allow']);
    expect(allowed[0]!.detail).not.toContain(cookie.split('=')[1]);
  });

  it('serves the login form and the console page with the HTML security headers', async () => {
    const t = await app();
    const page = await anon(t, '/login');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expectSecurityHeaders(page, true);
    const html = await page.text();
    expect(html).toMatch(/<form method="post" action="\/login">/);
    expect(html).toMatch(/<input[^>]+name="api_key"[^>]+type="password"/);
    expect(html).not.toContain('class="error"');
    const failed = await anon(t, '/login?error=1');
    expect(await failed.text()).toContain('class="error"');

    // Without a session the console sends the browser to the login page.
    const noSession = await anon(t, '/');
    expect(noSession.status).toBe(303);
    expect(noSession.headers.get('location')).toBe('/login');
    expectSecurityHeaders(noSession);

    const { cookie, csrf } = await login(t);
    const consolePage = await anon(t, '/', { headers: { cookie } });
    expectSecurityHeaders(consolePage, true);
    expect(csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(csrf).not.toBe(cookie.split('=')[1]);
  });

  it('keeps script and style out of the pages: the CSP allows only files from the service, which serves them', async () => {
    const t = await app();
    const { cookie, csrf } = await login(t);
    const consolePage = await anon(t, '/', { headers: { cookie } });
    const csp = consolePage.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("style-src 'self';");
    expect(csp).not.toContain('unsafe-inline');
    const html = await consolePage.text();
    // The token is only in the meta tag; the page has no inline script or style of its own.
    expect(html.split(csrf)).toHaveLength(2);
    expect(html).toContain('<script type="module" src="/assets/console.js"></script>');
    expect(html).not.toMatch(/<script>|<style|style="/);
    const loginHtml = await (await anon(t, '/login')).text();
    expect(loginHtml).toContain('<script type="module" src="/assets/login.js"></script>');
    expect(loginHtml).not.toMatch(/<script>|<style|style="/);

    // The assets need no session (the login page uses its script and the stylesheet) and carry the usual headers.
    for (const [path, type, marker] of [
      ['/assets/console.js', 'text/javascript; charset=utf-8', 'csrf-token'],
      ['/assets/login.js', 'text/javascript; charset=utf-8', 'location.hash'],
      ['/assets/console.css', 'text/css; charset=utf-8', ':focus-visible'],
    ] as const) {
      const asset = await anon(t, path);
      expect(asset.status, path).toBe(200);
      expect(asset.headers.get('content-type')).toBe(type);
      expectSecurityHeaders(asset);
      expect(await asset.text()).toContain(marker);
    }
    const unknown = await anon(t, '/assets/other.js');
    expect(unknown.status).toBe(401);
    expect((await anon(t, '/assets/other.js', { headers: { cookie } })).status).toBe(404);
  });

  it('adds Secure only over HTTPS as a trusted proxy reports it', async () => {
    const direct = await app();
    const plain = await postLogin(direct, direct.apiKey, { 'x-forwarded-proto': 'https' });
    expect(plain.headers.getSetCookie()[0]).not.toContain('Secure');

    const proxied = await app({ config: { api: { trust_proxy: true } } });
    const viaHttps = await postLogin(proxied, proxied.apiKey, { 'x-forwarded-proto': 'https' });
    expect(viaHttps.headers.getSetCookie()[0]).toMatch(/; HttpOnly; SameSite=Strict; Path=\/; Max-Age=28800; Secure$/);
    const viaHttp = await postLogin(proxied, proxied.apiKey, { 'x-forwarded-proto': 'http' });
    expect(viaHttp.headers.getSetCookie()[0]).not.toContain('Secure');
  });

  it('sends a wrong key back to /login?error=1 without a cookie and audits web.login deny', async () => {
    const t = await app();
    const res = await postLogin(t, `${t.apiKey}x`);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/login?error=1');
    expect(res.headers.getSetCookie()).toEqual([]);
    expectSecurityHeaders(res);
    const missing = await anon(t, '/login', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
    expect(missing.headers.get('location')).toBe('/login?error=1');

    const denied = auditRows(t, 'web.login');
    expect(denied).toHaveLength(2); // both failed attempts, not a sample
    expect(denied.every((r) => r.result === 'deny')).toBe(true);
    expect(denied.map((r) => r.detail).join()).not.toContain(t.apiKey);
  });

  it('accepts a JSON login, and form bodies nowhere but the login route', async () => {
    const t = await app();
    const json = await anon(t, '/login', {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: t.apiKey }),
    });
    expect(json.status).toBe(303);
    expect(json.headers.getSetCookie()[0]).toMatch(new RegExp(`^${COOKIE}=`));

    const repeated = await anon(t, '/login', {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `api_key=a&api_key=${t.apiKey}`,
    });
    expect(repeated.status).toBe(400);
    const form = await t.request('/api/v1/sessions', {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'name=x',
    });
    expect(form.status).toBe(415);
  });
});

describe('CSRF', () => {
  it('refuses cookie-authenticated unsafe requests without the right X-CSRF-Token, audited as web.csrf', async () => {
    const t = await app();
    const { cookie, csrf } = await login(t);

    const missing = await createSession(t, { cookie });
    expect(missing.status).toBe(403);
    expectSecurityHeaders(missing);
    expect(await missing.json()).toEqual({ status: 'error', error: 'CSRF token missing or invalid', code: 'AGENTD_FORBIDDEN' });
    const wrong = await createSession(t, { cookie, 'x-csrf-token': csrf.slice(0, -1) + (csrf.endsWith('A') ? 'B' : 'A') });
    expect(wrong.status).toBe(403);
    const rows = auditRows(t, 'web.csrf');
    expect(rows).toHaveLength(2); // each mismatch is recorded, not a sample
    expect(rows.every((r) => r.result === 'deny')).toBe(true);
    expect(rows.map((r) => r.detail).join()).not.toContain(csrf);

    const right = await createSession(t, { cookie, 'x-csrf-token': csrf });
    expect(right.status).toBe(201);
    const { data } = (await right.json()) as { data: { id: string } };
    // DELETE is unsafe too; a GET needs no token.
    expect((await anon(t, `/api/v1/sessions/${data.id}`, { method: 'DELETE', headers: { cookie } })).status).toBe(403);
    expect((await anon(t, `/api/v1/sessions/${data.id}`, { headers: { cookie } })).status).toBe(200);
  });

  it('lets a valid API key decide when a cookie comes along; a wrong key is refused despite the cookie', async () => {
    const t = await app();
    const { cookie } = await login(t);
    expect((await createSession(t, { cookie, authorization: `Bearer ${t.apiKey}` })).status).toBe(201);
    expect((await createSession(t, { cookie, 'x-api-key': t.apiKey })).status).toBe(201);
    expect((await anon(t, '/api/v1/status', { headers: { cookie, 'x-api-key': `${t.apiKey}x` } })).status).toBe(401);
  });
});

describe('logout', () => {
  it('needs the CSRF header, revokes the session, clears the cookie and audits web.logout', async () => {
    const t = await app();
    const { cookie, csrf } = await login(t);
    const refused = await anon(t, '/logout', { method: 'POST', headers: { cookie } });
    expect(refused.status).toBe(403);
    expect((await anon(t, '/api/v1/status', { headers: { cookie } })).status).toBe(200);

    const res = await anon(t, '/logout', { method: 'POST', headers: { cookie, 'x-csrf-token': csrf } });
    expect(res.status).toBe(200);
    expectSecurityHeaders(res);
    expect(await res.json()).toEqual({ status: 'ok', data: { logged_out: true } });
    expect(res.headers.getSetCookie()).toEqual([`${COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`]);

    expect((await anon(t, '/api/v1/status', { headers: { cookie } })).status).toBe(401);
    expect((await anon(t, '/logout', { method: 'POST', headers: { cookie, 'x-csrf-token': csrf } })).status).toBe(401);
    expect((await anon(t, '/', { headers: { cookie } })).headers.get('location')).toBe('/login');
    const rows = auditRows(t, 'web.logout');
    expect(rows.map((r) => r.result)).toEqual(['allow']);
  });
});

describe('expiry and bounds', () => {
  it('stops accepting the cookie once the TTL since login has passed', async () => {
    let now = Date.parse('2026-03-01T08:00:00Z');
    const t = await app({ now: () => now, config: { api: { web_session_ttl_seconds: 600 } } });
    const { cookie } = await login(t);
    now += 599_000;
    expect((await anon(t, '/api/v1/status', { headers: { cookie } })).status).toBe(200);
    now += 1_000;
    const expired = await anon(t, '/api/v1/status', { headers: { cookie } });
    expect(expired.status).toBe(401);
    expect(await expired.json()).toEqual({ status: 'error', error: 'Unauthorized', code: 'AGENTD_UNAUTHORIZED' });
    const page = await anon(t, '/', { headers: { cookie } });
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/login');
  });

  it('keeps at most 1,000 sessions over HTTP, evicting the oldest', async () => {
    const t = await app();
    const first = await login(t);
    const second = await login(t);
    for (let i = 0; i < 999; i += 50) {
      await Promise.all(Array.from({ length: Math.min(50, 999 - i) }, () => postLogin(t, t.apiKey)));
    }
    expect((await anon(t, '/api/v1/status', { headers: { cookie: first.cookie } })).status).toBe(401);
    expect((await anon(t, '/api/v1/status', { headers: { cookie: second.cookie } })).status).toBe(200);
  });
});

describe('restart', () => {
  it('keeps a login across a restart on the same SQLite home: the cookie and its CSRF token still work, only the digest is stored, logout deletes it', async () => {
    const home = mkdtempSync(join(tmpdir(), 'agentd-restart-'));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    const apiKey = `test-${randomToken(16)}`;
    const first = await startTestApp({ home, config: { api: { api_key: apiKey } } });
    const session = await login(first);
    await first.close();

    const t = await app({ home, config: { api: { api_key: apiKey } } });
    const rows = sqliteOf(t.app).prepare('SELECT * FROM web_sessions').all() as Record<string, unknown>[];
    expect(rows).toHaveLength(1);
    expect(rows[0]!.token_digest).toBe(createHash('sha256').update(session.token).digest('base64url'));
    expect(JSON.stringify(rows)).not.toContain(session.token);

    expect((await anon(t, '/api/v1/status', { headers: { cookie: session.cookie } })).status).toBe(200);
    const page = await anon(t, '/', { headers: { cookie: session.cookie } });
    expect(/<meta name="csrf-token" content="([^"]+)">/.exec(await page.text())?.[1]).toBe(session.csrf);
    expect((await createSession(t, { cookie: session.cookie })).status).toBe(403);
    expect((await createSession(t, { cookie: session.cookie, 'x-csrf-token': session.csrf })).status).toBe(201);

    const out = await anon(t, '/logout', { method: 'POST', headers: { cookie: session.cookie, 'x-csrf-token': session.csrf } });
    expect(out.status).toBe(200);
    expect(sqliteOf(t.app).prepare('SELECT count(*) AS n FROM web_sessions').get()).toEqual({ n: 0 });
    expect((await anon(t, '/api/v1/status', { headers: { cookie: session.cookie } })).status).toBe(401);
  });
});

describe('empty configured key', () => {
  it('answers 401 to the login page, the login form and any cookie', async () => {
    const t = await app({ config: { api: { api_key: '' } } });
    const page = await anon(t, '/login');
    expect(page.status).toBe(401);
    expectSecurityHeaders(page);
    const form = await anon(t, '/login', {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'api_key=',
    });
    expect(form.status).toBe(401);
    expect(form.headers.getSetCookie()).toEqual([]);
    const cookie = `${COOKIE}=${'A'.repeat(43)}`;
    expect((await anon(t, '/api/v1/status', { headers: { cookie } })).status).toBe(401);
    expect((await anon(t, '/', { headers: { cookie } })).status).toBe(401);
    expect((await anon(t, '/logout', { method: 'POST', headers: { cookie } })).status).toBe(401);
  });
});

describe('run event stream with the cookie alone', () => {
  async function cookieRun(t: TestApp, session: Login): Promise<string> {
    const res = await anon(t, '/api/v1/runs', {
      method: 'POST',
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrf, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'what is 17*23?' }),
    });
    expect(res.status).toBe(202);
    return ((await res.json()) as { data: { run_id: string } }).data.run_id;
  }

  it('streams over a raw HTTP request carrying only the cookie', async () => {
    const t = await app();
    const session = await login(t);
    const runId = await cookieRun(t, session);
    const stream = await rawGet(t.url, `/api/v1/runs/${runId}/events`, { cookie: session.cookie });
    cleanups.push(() => stream.destroy());
    expect(await stream.status()).toBe(200);
    expect((await stream.head()).toLowerCase()).toContain('content-type: text/event-stream');
    const events = parseSse(await stream.ended());
    expect(events.map((e) => e.event)).toEqual(['run.start', 'tool.request', 'tool.result', 'run.complete']);
    expect(JSON.parse(events[3]!.data)).toMatchObject({ run_id: runId, response: expect.stringContaining('391') });

    const refused = await rawGet(t.url, `/api/v1/runs/${runId}/events`, {});
    cleanups.push(() => refused.destroy());
    expect(await refused.status()).toBe(401);
  });

  it('streams to an EventSource whose requests carry the cookie', async () => {
    const t = await app();
    const session = await login(t);
    const runId = await cookieRun(t, session);
    const statuses: number[] = [];
    const source = new EventSource(`${t.url}/api/v1/runs/${runId}/events`, {
      fetch: async (input, init) => {
        const response = await fetch(input, { ...init, headers: { ...init?.headers, cookie: session.cookie } });
        statuses.push(response.status);
        return response;
      },
    });
    cleanups.push(() => source.close());
    const complete = await new Promise<{ response: string }>((resolve) => {
      source.addEventListener('run.complete', (event) => resolve(JSON.parse(event.data)));
    });
    expect(complete.response).toContain('391');
    expect(statuses[0]).toBe(200);
  });
});
