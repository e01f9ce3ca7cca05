import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';
import { launchChromium, signIn } from './helpers/browser.js';

/**
 * The console's page loads do not spend the API's rate budget (docs/api.md#rate-limits): pages,
 * assets and logins count in the browser's own, larger window, while the API calls the console
 * makes count like any API request, and failed logins still run into the failed-auth window.
 */
const RPM = 60;
let browser: Browser;
const apps: TestApp[] = [];

beforeAll(async () => {
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  for (const t of apps.splice(0)) await t.close();
});

async function start(rpm: number): Promise<TestApp> {
  const t = await startTestApp({ config: { api: { rate_limit_rpm: rpm } } });
  apps.push(t);
  return t;
}

const wrongLogin = (t: TestApp) => fetch(`${t.url}/login`, {
  method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'api_key=not-the-key',
});

describe('the console and the API rate budget', () => {
  it('lets a login and 20 full reloads through without a 429; only the console\'s API calls count against the 60 a minute', async () => {
    const t = await start(RPM);
    const context = await browser.newContext();
    const answers: { status: number; path: string }[] = [];
    context.on('response', (response) => answers.push({ status: response.status(), path: new URL(response.url()).pathname }));
    const page = await context.newPage();
    await signIn(page, t);
    await page.waitForLoadState('networkidle');
    for (let i = 0; i < 20; i++) await page.reload({ waitUntil: 'networkidle' });
    await context.close();

    expect(answers.filter((a) => a.status === 429)).toEqual([]);
    const pageLoads = answers.filter((a) => a.path === '/').length;
    expect(pageLoads).toBe(21);
    const browserRequests = answers.filter((a) => !a.path.startsWith('/api/v1/'));
    // The login page, its form post, 21 console pages and their assets: more than a window of 60 would allow.
    expect(browserRequests.length).toBeGreaterThanOrEqual(2 + 21 * 3);
    expect(browserRequests.length).toBeGreaterThan(RPM);
    const apiCalls = answers.length - browserRequests.length;
    expect(apiCalls).toBeGreaterThanOrEqual(21);

    // The API's window holds exactly what the console asked of the API: the rest of the 60 pass, then 429.
    const statuses: number[] = [];
    for (let i = 0; i < 61; i++) statuses.push((await t.request('/api/v1/status')).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(RPM - apiCalls);
    expect(statuses.slice(RPM - apiCalls)).toEqual(statuses.slice(RPM - apiCalls).map(() => 429));
  }, 120_000);

  it('still counts 61 API requests a minute into a 429 with Retry-After', async () => {
    const t = await start(RPM);
    const statuses: number[] = [];
    for (let i = 0; i < RPM; i++) statuses.push((await t.request('/api/v1/status')).status);
    expect(statuses).toEqual(statuses.map(() => 200));
    const limited = await t.request('/api/v1/status');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('bounds assets and pages by their own window, ten times the API\'s, without touching the API\'s', async () => {
    const t = await start(6);
    const statuses: number[] = [];
    for (let i = 0; i < 61; i++) statuses.push((await fetch(`${t.url}/assets/console.css`)).status);
    expect(statuses.slice(0, 60)).toEqual(statuses.slice(0, 60).map(() => 200));
    expect(statuses[60]).toBe(429);
    expect((await fetch(`${t.url}/login`)).status).toBe(429);
    expect((await fetch(`${t.url}/favicon.ico`)).status).toBe(429);
    expect((await t.request('/api/v1/status')).status).toBe(200);
  });

  it('keeps failed logins in the failed-auth window: past the API\'s limit they get 429, and the right key still logs in', async () => {
    const t = await start(6);
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await wrongLogin(t)).status);
    expect(statuses).toEqual([303, 303, 303, 303, 303, 303, 429]);
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, t);
    expect(new URL(page.url()).pathname).toBe('/');
    await context.close();
  }, 60_000);
});
