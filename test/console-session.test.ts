import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI } from './fakes/openai-server.js';
import { postJson } from './helpers/agent.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { launchChromium, openPanel, setTabHidden, signedInPage } from './helpers/browser.js';

/**
 * The console over time: what an idle console costs the service (it shares the per-IP rate limit
 * with everything else the operator does), and what happens when the browser session expires.
 */
let browser: Browser;
const apps: TestApp[] = [];

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  for (const t of apps) await t.close();
});

async function app(options: Parameters<typeof startTestApp>[0] = {}): Promise<TestApp> {
  const t = await startTestApp(options);
  apps.push(t);
  return t;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('an idle console', () => {
  it('makes at most 10 requests in 60 s (the overview and the approvals badge every 15 s) and none while hidden', async () => {
    const t = await app();
    const page = await signedInPage(browser, t);
    await page.getByRole('heading', { name: 'Runtime status' }).waitFor();
    const requests: string[] = [];
    page.on('request', (request) => requests.push(new URL(request.url()).pathname));

    await sleep(60_000);
    // Printed for the record: the number docs/decisions.md#the-console-polls-only-the-visible-panel is about.
    console.log(`idle console, 60 s on the status panel: ${requests.length} requests (${requests.join(', ')})`);
    expect(requests.length).toBeLessThanOrEqual(10);
    // It does poll: three or four 15 s intervals of the panel and of the badge fit in a minute.
    expect(requests.filter((path) => path === '/api/v1/overview').length).toBeGreaterThanOrEqual(3);
    expect(requests.filter((path) => path === '/api/v1/approvals').length).toBeGreaterThanOrEqual(3);
    expect(requests.filter((path) => path !== '/api/v1/overview' && path !== '/api/v1/approvals')).toEqual([]);

    // A hidden tab stops polling; showing it again reads the panel at once.
    await setTabHidden(page, true);
    requests.length = 0;
    await sleep(16_000);
    expect(requests).toEqual([]);
    const reread = page.waitForRequest((request) => new URL(request.url()).pathname === '/api/v1/overview', { timeout: 2_000 });
    await setTabHidden(page, false);
    await reread;
  }, 120_000);
});

describe('a deep link opened before signing in', () => {
  it('lands on the linked panel once the operator has signed in, also after a mistyped key', async () => {
    const t = await app();
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${t.url}/#/audit?result=deny`);
    await page.waitForURL(`${t.url}/login#/audit?result=deny`);
    await page.fill('#api_key', 'not-the-key');
    await Promise.all([page.waitForURL(`${t.url}/login?error=1#/audit?result=deny`), page.click('button[type="submit"]')]);
    await page.fill('#api_key', t.apiKey);
    await Promise.all([page.waitForURL(`${t.url}/#/audit?result=deny`), page.click('button[type="submit"]')]);
    await page.getByRole('heading', { name: 'Audit trail' }).waitFor();
  });
});

describe('costs against a cap', () => {
  it('shows each session\'s spend as a share of max_spend_usd', async () => {
    const upstream = await startFakeOpenAI();
    try {
      const t = await app({
        env: { OPENAI_API_KEY: 'sk-test-openai-0123456789abcdefghij' },
        config: {
          max_spend_usd: 2,
          providers: { openai: { api_key_env: 'OPENAI_API_KEY', model: 'gpt-4.1-mini', base_url: upstream.baseUrl, price: { input_per_mtok: 0.5, output_per_mtok: 0 } } },
          network: { allowed_hosts: [upstream.host] },
        },
      });
      // A million prompt tokens at $0.50 each million: $0.50 spent, a quarter of the $2 cap.
      upstream.enqueue({ text: 'done', usage: { input: 1_000_000, output: 10 } });
      const chat = await postJson(t, '/api/v1/chat', { message: 'spend something', provider: 'openai' });
      expect(chat.status).toBe(200);
      const { session_id: sessionId } = ((await chat.json()) as { data: { session_id: string } }).data;

      const page = await signedInPage(browser, t);
      await openPanel(page, 'Costs');
      const row = page.getByRole('row').filter({ hasText: sessionId });
      expect(await row.getByRole('cell').nth(3).textContent()).toBe('25 % of $2.00');
      expect(await row.getByRole('cell').nth(2).textContent()).toBe('$0.50');
      expect(await page.locator('dl.facts').textContent()).toContain('Cap per session$2.00');
    } finally {
      await upstream.close();
    }
  });
});

describe('session expiry', () => {
  it('warns at start about a short TTL, and sends the page to the login form once it has passed', async () => {
    const t = await app({ config: { api: { web_session_ttl_seconds: 2 } } });
    expect(t.log.lines.some((line) => line.includes('api.web_session_ttl_seconds is 2'))).toBe(true);
    const page = await signedInPage(browser, t);
    await page.getByRole('heading', { name: 'Runtime status' }).waitFor();
    await sleep(2_500);
    await page.getByRole('navigation', { name: 'Panels' }).getByRole('link', { name: 'Providers' }).click();
    await page.waitForURL(`${t.url}/login`);
    expect(await page.locator('#api_key').count()).toBe(1);
  });

  it('does not warn about the default TTL', async () => {
    const t = await app();
    expect(t.log.lines.some((line) => line.includes('web_session_ttl_seconds'))).toBe(false);
    const page = await signedInPage(browser, t);
    await openPanel(page, 'Providers');
    expect(new URL(page.url()).pathname).toBe('/');
  });
});

describe('rate limit', () => {
  it('shows a banner with the wait the service asks for, and the refusal in the panel', async () => {
    const t = await app({ config: { api: { rate_limit_rpm: 12 } } });
    const page = await signedInPage(browser, t);
    const banner = page.locator('.banner');
    // Each panel opened is one more request; the limit is reached within a few.
    for (let i = 0; i < 12 && (await banner.count()) === 0; i++) {
      await page.getByRole('navigation', { name: 'Panels' }).getByRole('link', { name: i % 2 === 0 ? 'Providers' : 'Tools' }).click();
      await page.locator('.panel p').last().waitFor();
    }
    expect(await banner.textContent()).toMatch(/rate limiting this browser: wait \d+ s/);
    const seconds = Number(/wait (\d+) s/.exec((await banner.textContent()) ?? '')?.[1]);
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThanOrEqual(60);
    expect(await page.locator('.panel .error').textContent()).toMatch(/Too many requests: try again in \d+ s/);
  });
});

