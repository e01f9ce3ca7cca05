import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestAppOptions } from './helpers/app.js';
import { inPage, launchChromium } from './helpers/browser.js';

/**
 * Refusals of a browser's page loads are small HTML pages with the envelope's status and headers
 * plus the pages' CSP; API clients keep the JSON envelope byte for byte (docs/api.md#error-pages).
 */
const NAVIGATION = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
const apps: TestApp[] = [];
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  for (const t of apps.splice(0)) await t.close();
});

async function start(options: TestAppOptions): Promise<TestApp> {
  const t = await startTestApp(options);
  apps.push(t);
  return t;
}

const get = (t: TestApp, path: string, accept?: string) => fetch(`${t.url}${path}`, { redirect: 'manual', headers: accept ? { accept } : {} });

function expectPageHeaders(res: Response): void {
  expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  expect(res.headers.get('x-frame-options')).toBe('DENY');
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
  expect(res.headers.get('x-request-id')).toMatch(/./);
}

const UNAUTHORIZED_JSON = '{"status":"error","error":"Unauthorized","code":"AGENTD_UNAUTHORIZED"}';

describe('error pages for page loads', () => {
  it('tells a browser that no API key is configured, and how to set one; API clients keep the envelope', async () => {
    const t = await start({ config: { api: { api_key: '' } } });
    for (const path of ['/', '/login']) {
      const page = await get(t, path, NAVIGATION);
      expect(page.status).toBe(401);
      expectPageHeaders(page);
      const html = await page.text();
      expect(html).toMatch(/no API key is configured: set api\.api_key/i);
      expect(html).toContain('SERVICE_API_KEY');
      expect(html).not.toContain('AGENTD_UNAUTHORIZED');
    }
    for (const [path, accept] of [['/', 'application/json'], ['/', undefined], ['/', 'text/html, application/json'], ['/api/v1/status', NAVIGATION], ['/healthz', NAVIGATION]] as const) {
      const res = await get(t, path, accept);
      expect(res.status, `${path} ${accept}`).toBe(401);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await res.text()).toBe(UNAUTHORIZED_JSON);
    }

    // What the operator sees in a real browser: the sentence, not JSON, and the page obeys its CSP.
    const context = await browser.newContext();
    const tab = await context.newPage();
    const answer = await tab.goto(`${t.url}/`);
    expect(answer?.status()).toBe(401);
    expect(await inPage<string>(tab, 'document.querySelector("[role=alert]").textContent')).toBe('No API key is configured: set api.api_key');
    expect(await inPage<string>(tab, 'document.title')).toBe('agentd — 401 No API key is configured: set api.api_key');
    await context.close();
  }, 60_000);

  it('says how long to wait when rate limited, with Retry-After, and keeps JSON for the API', async () => {
    // The browser window is ten times the API's: 10 page loads a minute at rate_limit_rpm 1.
    const t = await start({ config: { api: { rate_limit_rpm: 1 } } });
    for (let i = 0; i < 10; i++) expect((await get(t, '/login', NAVIGATION)).status).toBe(200);
    const page = await get(t, '/login', NAVIGATION);
    expect(page.status).toBe(429);
    expectPageHeaders(page);
    const wait = Number(page.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(0);
    expect(await page.text()).toContain(`Too many requests, retry in ${wait} s`);

    expect((await t.request('/api/v1/status', { headers: { accept: NAVIGATION } })).status).toBe(200);
    const api = await t.request('/api/v1/status', { headers: { accept: NAVIGATION } });
    expect(api.status).toBe(429);
    expect(api.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await api.text()).toBe('{"status":"error","error":"Rate limit exceeded","code":"AGENTD_RATE_LIMITED"}');
  });

  it('answers a server failure with a page that names no internals, and a refused form post with a page too', async () => {
    const t = await start({
      beforeListen: (app) => {
        app.http.get('/broken', async () => {
          throw new Error('secret internals /home/agentd');
        });
      },
    });
    const page = await fetch(`${t.url}/broken`, { headers: { accept: NAVIGATION, authorization: `Bearer ${t.apiKey}` } });
    expect(page.status).toBe(500);
    expectPageHeaders(page);
    const html = await page.text();
    expect(html).toContain('Internal server error');
    expect(html).toContain('retry in a moment');
    expect(html).not.toContain('secret internals');
    const json = await t.request('/broken');
    expect(await json.text()).toBe('{"status":"error","error":"Internal server error","code":"AGENTD_INTERNAL"}');

    const form = await fetch(`${t.url}/login`, {
      method: 'POST', headers: { accept: NAVIGATION, 'content-type': 'application/x-www-form-urlencoded' }, body: 'api_key=a&api_key=b',
    });
    expect(form.status).toBe(400);
    expectPageHeaders(form);
    expect(await form.text()).toContain('field &#34;api_key&#34; is repeated');
  });

  it('escapes what the request chose before it is shown', async () => {
    const t = await start({});
    const page = await get(t, '/login?%3Cscript%3Ealert(1)%3C%2Fscript%3E=%00', NAVIGATION);
    expect(page.status).toBe(400);
    const html = await page.text();
    expect(html).toContain('query parameter &#34;&#60;script&#62;alert(1)&#60;/script&#62;&#34;');
    expect(html).not.toContain('<script>alert');
  });
});
