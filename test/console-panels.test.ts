import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeLlmServer } from './fakes/fake-llm-server.js';
import { eventually, finishedRun, json, postJson, startRun } from './helpers/agent.js';
import type { TestApp } from './helpers/app.js';
import { DESKTOP, inPage, openPanel, PHONE, screenshot, seriousAxeViolations, signIn } from './helpers/browser.js';
import { startConsoleApp, type ConsoleApp } from './helpers/console-app.js';

/**
 * The console's overview, Costs, Sessions, Jobs and Audit panels doing their real tasks in a real
 * Chromium against a real agentd. The browser runs in Asia/Kolkata (UTC+05:30), so a time shown
 * or typed in UTC by mistake would differ from the one expected.
 */
const ZONE = 'Asia/Kolkata';
const CAP = 0.01;
let app: ConsoleApp;
let browser: Browser;
let t: TestApp;
let upstream: FakeLlmServer;
const pages: Page[] = [];

beforeAll(async () => {
  app = await startConsoleApp({ config: { max_spend_usd: CAP }, openai: { price: { input_per_mtok: 0.5, output_per_mtok: 0 } } });
  ({ t, browser, upstream } = app);
}, 60_000);

afterAll(async () => {
  for (const p of pages) await p.context().close().catch(() => {});
  await app?.close();
});

async function page(viewport = DESKTOP): Promise<Page> {
  const context = await browser.newContext({ viewport, timezoneId: ZONE });
  context.setDefaultTimeout(10_000);
  const p = await context.newPage();
  pages.push(p);
  await signIn(p, t);
  return p;
}

/** The zone's name as the browser resolves it (Chromium says Asia/Calcutta), which the console shows. */
const shownZone = (p: Page) => inPage<string>(p, 'Intl.DateTimeFormat().resolvedOptions().timeZone');

/** An instant as the console shows it in `ZONE`: `YYYY-MM-DD HH:MM:SS`. */
function inZone(iso: string): string {
  const parts = new Map(new Intl.DateTimeFormat('en-CA', {
    timeZone: ZONE, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23',
  }).formatToParts(new Date(iso)).map((part) => [part.type, part.value]));
  return `${parts.get('year')}-${parts.get('month')}-${parts.get('day')} ${parts.get('hour')}:${parts.get('minute')}:${parts.get('second')}`;
}

function acceptNextDialog(p: Page): Promise<string> {
  return new Promise((resolve) => p.once('dialog', (dialog) => {
    resolve(dialog.message());
    void dialog.accept();
  }));
}

const cells = async (p: Page, rowSelector: string) => p.locator(rowSelector).locator('td').allTextContents();

describe('sessions', () => {
  it('pages past eight API sessions with their names, ends one after the dialog, and opens a transcript', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const created = await json(await postJson(t, '/api/v1/sessions', { name: `desk ${i}` }));
      ids.push(created.data.id);
    }
    const p = await page();
    await openPanel(p, 'Sessions');
    const table = p.getByRole('region', { name: 'API sessions' });
    await p.getByText('Sessions 1–8').waitFor();
    const names = async () => (await table.locator('tbody tr').evaluateAll((rows) => rows.map((row) => row.children[2]!.textContent)));
    expect(await names()).toEqual(['desk 9', 'desk 8', 'desk 7', 'desk 6', 'desk 5', 'desk 4', 'desk 3', 'desk 2']);
    expect(await cells(p, `tr[data-session-id="${ids[9]}"]`)).toContain('API');
    expect(await p.locator(`tr[data-session-id="${ids[9]}"] a`, { hasText: 'Runs' }).getAttribute('href')).toBe(`#/runs?session_id=${ids[9]}`);

    await p.getByRole('button', { name: 'More sessions' }).click();
    await p.getByText('Sessions 9–10 (the last page)').waitFor();
    expect(await names()).toEqual(['desk 1', 'desk 0']);
    expect(new URL(p.url()).hash).toBe('#/sessions?offset=8');
    expect(await p.getByRole('button', { name: 'More sessions' }).isDisabled()).toBe(true);

    // Saying no ends nothing; saying yes ends the session on the service.
    p.once('dialog', (dialog) => void dialog.dismiss());
    await p.getByRole('button', { name: 'End session desk 1' }).click();
    expect((await t.request(`/api/v1/sessions/${ids[1]}`)).status).toBe(200);
    const question = acceptNextDialog(p);
    await p.getByRole('button', { name: 'End session desk 1' }).click();
    expect(await question).toContain('End the session "desk 1"');
    await p.getByRole('status').filter({ hasText: `Session ${ids[1]} ended.` }).waitFor();
    expect((await t.request(`/api/v1/sessions/${ids[1]}`)).status).toBe(404);
    expect(await p.locator(`tr[data-session-id="${ids[1]}"]`).count()).toBe(0);

    const chat = await json(await postJson(t, '/api/v1/chat', { message: 'the heron sings at dawn' }));
    await p.getByRole('button', { name: 'Previous sessions' }).click();
    await p.locator(`tr[data-session-id="${chat.data.session_id}"]`).getByRole('link', { name: `Transcript of ${chat.data.session_id}` }).click();
    const transcript = p.getByRole('list', { name: 'Transcript' });
    expect(await transcript.locator('.turn').first().textContent()).toContain('the heron sings at dawn');
    expect(await transcript.locator('.turn').count()).toBe(2);
    expect(await seriousAxeViolations(p)).toEqual([]);
  });

  it('labels the session of a scheduled job with its kind and the job\'s name', async () => {
    const job = await t.app.scheduler.create({ name: 'heartbeat', schedule: 'every 1 seconds', task: 'what is 1+1' });
    try {
      await eventually(async () => (await json(await t.request(`/api/v1/runs?job_id=${job.id}`))).data.runs.length > 0);
      await t.app.scheduler.pause(job.id);
      const p = await page();
      await openPanel(p, 'Sessions');
      await p.locator(`tr[data-session-id="job:${job.id}"]`).waitFor();
      const [, kind, name] = await cells(p, `tr[data-session-id="job:${job.id}"]`);
      expect([kind, name]).toEqual(['job', 'heartbeat']);
      expect(await seriousAxeViolations(p)).toEqual([]);
      expect(await p.getByRole('link', { name: `Transcript of job:${job.id}` }).getAttribute('href')).toBe(`#/memory?session_id=job%3A${job.id}`);
    } finally {
      await t.app.scheduler.remove(job.id);
    }
  });
});

describe('costs', () => {
  it('shows the real share of the cap, highlights a session over it, charts spend per model and day, and pages past 20', async () => {
    const now = new Date().toISOString();
    const record = (session: string, cost: number, provider = 'openai', model = 'gpt-4.1-mini') => t.app.agent.costs.record({
      session_id: session, run_id: null, provider, model, prompt_tokens: 100, completion_tokens: 10, cost_usd: cost, timestamp: now,
    });
    // $0.024 in two calls on a $0.01 cap: 240 %, never "100 %" and never "$0.02".
    await record('ses_over', 0.012);
    await record('ses_over', 0.012, 'anthropic', 'claude-haiku');
    for (let i = 0; i < 23; i++) await record(`ses_small_${String(i).padStart(2, '0')}`, 0.0001 * (i + 1));

    const p = await page();
    await openPanel(p, 'Costs');
    const over = await cells(p, 'tr[data-session-id="ses_over"]');
    expect(over.slice(1, 5)).toEqual(['API', '$0.024', `240 % of $0.01 (over the cap)`, '2']);
    expect(await p.locator('tr[data-session-id="ses_over"]').getAttribute('class')).toBe('over-cap');
    const small = await cells(p, 'tr[data-session-id="ses_small_22"]');
    expect(small.slice(2, 4)).toEqual(['$0.0023', '23 % of $0.01']);
    expect(await p.locator('tr[data-session-id="ses_small_22"]').getAttribute('class')).toBeNull();

    const total = await p.getByText(/^Sessions 1–20 of \d+/).textContent();
    const count = Number(/of (\d+)/.exec(total!)![1]);
    await p.getByRole('button', { name: 'More sessions' }).click();
    await p.getByText(`Sessions 21–${count} of ${count}, most spend first`).waitFor();
    expect(new URL(p.url()).hash).toBe('#/costs?offset=20');
    expect(await p.locator('tr[data-session-id="ses_small_00"]').count()).toBe(1);

    const models = p.getByRole('region', { name: 'Spend per provider and model' });
    const byModel = await models.locator('tbody tr').evaluateAll((rows) => rows.map((row) => [...row.children].map((cell) => cell.textContent)));
    // openai: 0.012 + the sum of 0.0001..0.0023 = 0.0396; anthropic 0.012.
    expect(byModel.slice(0, 2)).toEqual([['openai / gpt-4.1-mini', '$0.04', '24'], ['anthropic / claude-haiku', '$0.012', '1']]);
    // The day chart's table: the day (in the browser's zone) of the UTC hour the calls fell in
    // carries all of it. Spend is kept per UTC hour and an hour goes to the day it starts in, so in
    // a half-hour zone like this one the calls of 18:30–19:00 UTC land on the day before "today".
    const chart = p.locator('figure.chart table');
    const hourStart = new Date(Math.floor(Date.parse(now) / 3_600_000) * 3_600_000).toISOString();
    const day = inZone(hourStart).slice(5, 10);
    const dayRow = await chart.locator('tbody tr', { has: p.locator('th', { hasText: day }) }).locator('td').allTextContents();
    expect(dayRow.at(-1)).toBe('$0.052');
    expect(await p.locator('figure.chart svg rect').count()).toBeGreaterThanOrEqual(2);
    expect(await seriousAxeViolations(p)).toEqual([]);
    await screenshot(p, 'costs-charts-1280px');
  });
});

describe('scheduled jobs', () => {
  it('puts a time-zone error under the time zone, offers the configured providers, and keeps the actions on a 390 px screen', async () => {
    const p = await page(PHONE);
    await openPanel(p, 'Scheduled jobs');
    const options = await p.locator('#job-provider option').evaluateAll((list) => list.map((o) => (o as unknown as { value: string }).value));
    const configured = (await json(await t.request('/api/v1/providers'))).data.providers.map((provider: { name: string }) => provider.name);
    expect(configured).toContain('openai');
    expect(options).toEqual(['', ...configured]);
    await p.fill('#job-name', 'paris digest');
    await p.fill('#job-schedule', 'daily at 09:00');
    await p.fill('#job-task', 'summarise the day');
    await p.fill('#job-timezone', 'Mars/Olympus');
    await p.getByRole('button', { name: 'Create job' }).click();
    expect(await p.locator('#job-timezone-error').textContent()).toContain('IANA time zone name');
    expect(await p.locator('#job-timezone').getAttribute('aria-invalid')).toBe('true');
    expect(await p.locator('#job-name-error').count()).toBe(0);
    expect(await p.locator('#job-name').getAttribute('aria-invalid')).toBeNull();

    await p.fill('#job-timezone', 'Europe/Paris');
    await p.selectOption('#job-provider', 'openai');
    await p.getByRole('button', { name: 'Create job' }).click();
    await p.getByText('Job "paris digest" created.').waitFor();
    const [job] = (await json(await t.request('/api/v1/scheduler/jobs'))).data.jobs;
    expect(job).toMatchObject({ name: 'paris digest', provider: 'openai', timezone: 'Europe/Paris' });

    const pause = p.getByRole('button', { name: 'Pause' });
    const box = (await pause.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
    expect(await inPage<number>(p, 'document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
    expect(await seriousAxeViolations(p)).toEqual([]);
    await screenshot(p, 'jobs-form-390px');
    await t.app.scheduler.remove(job.id);
  });
});

describe('audit trail', () => {
  it('shows times in the browser\'s zone, reads Since in that zone, and closes the detail on Escape and on new filters', async () => {
    const p = await page();
    await openPanel(p, 'Audit trail');
    const first = p.locator('tbody tr').first().locator('time');
    const iso = (await first.getAttribute('datetime'))!;
    const shown = inZone(iso);
    const zone = await shownZone(p);
    expect([ZONE, 'Asia/Calcutta']).toContain(zone);
    expect(await first.textContent()).toBe(`${shown} ${zone}`);
    expect(await first.getAttribute('title')).toBe(`${iso.slice(0, 19).replace('T', ' ')} UTC`);
    expect(await p.getByText(`Since (${zone})`).count()).toBe(1);

    const listed = () => p.locator('tbody tr time').evaluateAll((times) => times.map((time) => time.getAttribute('datetime')));
    // The shown second, typed into Since, keeps that event (since is inclusive)…
    await p.fill('#audit-since', shown.replace(' ', 'T'));
    await p.getByRole('button', { name: 'Apply filters' }).click();
    await p.waitForURL(/since=/);
    await p.getByText(/^Events 1–/).waitFor();
    expect(await listed()).toContain(iso);
    // …and the next second leaves it out: read in UTC it would be 5 h 30 min off either way.
    const next = inZone(new Date(Date.parse(iso.slice(0, 19) + 'Z') + 1000).toISOString());
    await p.fill('#audit-since', next.replace(' ', 'T'));
    await p.getByRole('button', { name: 'Apply filters' }).click();
    await eventually(async () => !(await listed()).includes(iso) || (await p.getByText('No events match.').count()) > 0);
    for (const time of await listed()) expect(Date.parse(time!)).toBeGreaterThanOrEqual(Date.parse(iso.slice(0, 19) + 'Z') + 1000);

    await p.getByRole('button', { name: 'Clear' }).click();
    await p.locator('tbody tr').first().waitFor();
    const detail = p.locator('aside.detail');
    await p.locator('tbody tr').first().getByRole('button').click();
    await detail.waitFor();
    await p.keyboard.press('Escape');
    await detail.waitFor({ state: 'detached' });

    await p.locator('tbody tr').first().getByRole('button').click();
    await detail.waitFor();
    await p.locator('.facet button.chip').first().click();
    await detail.waitFor({ state: 'detached' });
  });
});

describe('everywhere', () => {
  it('has "Skip to content" as the first focusable element, moving the focus to the panel', async () => {
    const p = await page();
    await p.getByRole('heading', { name: 'Runtime status' }).waitFor();
    await p.keyboard.press('Tab');
    expect(await inPage<string>(p, 'document.activeElement.textContent')).toBe('Skip to content');
    await p.keyboard.press('Enter');
    expect(await inPage<string>(p, 'document.activeElement.id')).toBe('panel-title');
    expect(new URL(p.url()).hash).toBe('');
  });

  it('serves an SVG favicon without a key, linked from the page, so the browser asks for nothing that is missing', async () => {
    const ico = await fetch(`${t.url}/favicon.ico`);
    expect(ico.status).toBe(200);
    expect(ico.headers.get('content-type')).toBe('image/svg+xml');
    expect(await ico.text()).toMatch(/^<svg /);
    const context = await browser.newContext({ viewport: DESKTOP });
    const p = await context.newPage();
    pages.push(p);
    const missing: string[] = [];
    p.on('response', (response) => {
      if (response.status() === 404) missing.push(response.url());
    });
    await signIn(p, t);
    await p.getByRole('heading', { name: 'Runtime status' }).waitFor();
    expect(await p.locator('link[rel="icon"]').getAttribute('href')).toBe('/favicon.svg');
    expect((await fetch(`${t.url}/favicon.svg`)).status).toBe(200);
    expect(missing).toEqual([]);
  });
});

describe('status overview', () => {
  it('loads with one API request, the overview, besides the approvals badge', async () => {
    const context = await browser.newContext({ viewport: DESKTOP, timezoneId: ZONE });
    const p = await context.newPage();
    pages.push(p);
    const calls: string[] = [];
    p.on('request', (request) => {
      const path = new URL(request.url()).pathname;
      if (path.startsWith('/api/v1/')) calls.push(path);
    });
    await signIn(p, t);
    await p.getByRole('heading', { name: 'Runtime status' }).waitFor();
    await p.locator('[data-figure="Runs in flight"]').waitFor();
    await p.waitForLoadState('networkidle');
    expect(calls.sort()).toEqual(['/api/v1/approvals', '/api/v1/overview']);
  });

  it('counts the last day\'s runs by status in its chart, links a failed run, and shows spend today and the next fire', async () => {
    const done = await startRun(t, { message: 'what is 2+3' });
    await finishedRun(t, done.run_id);
    upstream.enqueue({ error: { status: 400, message: 'the model refuses' } });
    const failed = await startRun(t, { message: 'fail please', provider: 'openai' });
    expect((await finishedRun(t, failed.run_id)).status).toBe('error');
    const job = await t.app.scheduler.create({ name: 'nightly report', schedule: 'daily at 03:00', task: 'report' });
    try {
      const hourly = (await json(await t.request('/api/v1/runs/hourly'))).data.hours as { status: string; runs: number }[];
      const complete = hourly.filter((h) => h.status === 'complete').reduce((sum, h) => sum + h.runs, 0);
      const errors = hourly.filter((h) => h.status === 'error').reduce((sum, h) => sum + h.runs, 0);
      expect(errors).toBeGreaterThanOrEqual(1);

      const p = await page();
      await p.getByRole('heading', { name: 'Runtime status' }).waitFor();
      const chart = p.locator('figure.chart table');
      // The table's header row names the series; its rows sum to what the API counted.
      const header = await chart.locator('thead th').allTextContents();
      const column = (name: string) => header.indexOf(name);
      const rows = await chart.locator('tbody tr').evaluateAll((list) => list.map((row) => [...row.children].map((cell) => cell.textContent)));
      expect(rows).toHaveLength(24);
      const sum = (name: string) => rows.reduce((total, row) => total + Number(row[column(name)]), 0);
      expect(sum('complete')).toBe(complete);
      expect(sum('error')).toBe(errors);
      expect(await p.locator('figure.chart svg rect.series-1').count()).toBeGreaterThanOrEqual(1);

      const link = p.getByRole('link', { name: failed.run_id });
      expect(await link.getAttribute('href')).toBe(`#/runs?run=${failed.run_id}`);
      expect(await p.locator('[data-figure="Spend today"] .figure').textContent()).toMatch(/^\$\d/);
      expect(await p.locator('[data-figure="Webhook queue"] .figure').textContent()).toBe('off');
      const fires = await p.locator('.card', { has: p.getByRole('link', { name: 'Next job fires' }) }).textContent();
      const next = (await json(await t.request(`/api/v1/scheduler/jobs/${job.id}`))).data.next_run_at as string;
      expect(fires).toContain(`nightly report: ${inZone(next)} ${await shownZone(p)}`);
      expect(await seriousAxeViolations(p)).toEqual([]);
      await screenshot(p, 'status-overview-1280px');
    } finally {
      await t.app.scheduler.remove(job.id);
    }
  });
});
