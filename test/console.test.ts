import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeLlmServer } from './fakes/fake-llm-server.js';
import { startFakeOpenAI } from './fakes/openai-server.js';
import { postJson } from './helpers/agent.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { AUDIT_EXACT_TOTAL, type AuditEvent } from '../src/storage/ports/audit.js';
import { SqliteStorage } from '../src/storage/sqlite/index.js';
import { DESKTOP, inPage, launchChromium, openPanel, PHONE, screenshot, seriousAxeViolations, signedInPage, signIn, untilLoaded, type AxeViolation } from './helpers/browser.js';

/**
 * The operator console in a real Chromium against a real agentd: the offline provider answers,
 * and a second provider (a fake OpenAI server on 127.0.0.1) is slow enough to be stopped. The
 * tests share one app; each opens its own browser context (its own cookie).
 */
let browser: Browser;
let t: TestApp;
let slow: FakeLlmServer;

beforeAll(async () => {
  slow = await startFakeOpenAI({ delayMs: 60_000 });
  t = await startTestApp({
    env: { OPENAI_API_KEY: 'sk-test-openai-0123456789abcdefghij' },
    config: {
      providers: { default: 'offline', openai: { api_key_env: 'OPENAI_API_KEY', model: 'gpt-4.1-mini', base_url: slow.baseUrl } },
      network: { allowed_hosts: [slow.host] },
    },
  });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await slow?.close();
});

const pages: Page[] = [];
async function page(viewport = DESKTOP): Promise<Page> {
  const p = await signedInPage(browser, t, viewport);
  pages.push(p);
  return p;
}

async function apiData<T>(path: string, init?: RequestInit): Promise<T> {
  const res = await t.request(path, init);
  return ((await res.json()) as { data: T }).data;
}

/** Accepts the next native dialog and hands back its question. */
function acceptNextDialog(p: Page): Promise<string> {
  return new Promise((resolve) => p.once('dialog', (dialog) => {
    resolve(dialog.message());
    void dialog.accept();
  }));
}

const text = async (p: Page, selector: string) => (await p.locator(selector).first().textContent()) ?? '';
const hashOf = (p: Page) => decodeURIComponent(new URL(p.url()).hash);

describe('login and logout', () => {
  it('refuses a wrong key with a message, then opens the console with the right one', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const p = await context.newPage();
    await signIn(p, t, 'not-the-key');
    const refused = new URL(p.url());
    expect(refused.pathname + refused.search).toBe('/login?error=1');
    expect(await p.getByRole('alert').textContent()).toContain('not accepted');
    await signIn(p, t);
    expect(new URL(p.url()).pathname).toBe('/');
    await p.getByRole('heading', { name: 'Runtime status' }).waitFor();
    expect(await text(p, 'dl.facts')).toContain('Default provideroffline');
    await context.close();
  });

  it('signs out to the login page, after which the old cookie opens nothing', async () => {
    const p = await page();
    const [cookie] = await p.context().cookies();
    const header = `${cookie!.name}=${cookie!.value}`;
    expect((await fetch(`${t.url}/api/v1/status`, { headers: { cookie: header } })).status).toBe(200);
    await p.getByRole('button', { name: 'Sign out' }).click();
    await p.waitForURL(`${t.url}/login`);
    expect(await p.locator('#api_key').count()).toBe(1);
    expect((await fetch(`${t.url}/api/v1/status`, { headers: { cookie: header } })).status).toBe(401);
    const again = await fetch(`${t.url}/`, { headers: { cookie: header }, redirect: 'manual' });
    expect(again.headers.get('location')).toBe('/login');
  });

  it('refuses a cookie-authenticated POST without the CSRF header, and a made-up cookie altogether', async () => {
    const p = await page();
    const [cookie] = await p.context().cookies();
    const post = (headers: Record<string, string>) =>
      fetch(`${t.url}/api/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' });
    expect((await post({ cookie: `${cookie!.name}=${cookie!.value}` })).status).toBe(403);
    const csrf = await p.locator('meta[name="csrf-token"]').getAttribute('content');
    expect((await post({ cookie: `${cookie!.name}=${cookie!.value}`, 'x-csrf-token': csrf! })).status).toBe(201);
    expect((await post({ cookie: `${cookie!.name}=forged${cookie!.value.slice(6)}`, 'x-csrf-token': csrf! })).status).toBe(401);
    // The page's own scripts send the token; a script that leaves it out is refused the same way.
    const withoutHeader = await inPage(p, "fetch('/api/v1/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).then((r) => r.status)");
    expect(withoutHeader).toBe(403);
  });
});

describe('keyboard', () => {
  it('reaches a panel and asks a question with Tab and Enter alone, the focus visibly outlined', async () => {
    const p = await page();
    const focused = () => inPage<{ text: string; outline: string }>(p,
      '({ text: document.activeElement.textContent, outline: getComputedStyle(document.activeElement).outlineStyle })');
    for (let i = 0; i < 10 && (await focused()).text !== 'Ask'; i++) await p.keyboard.press('Tab');
    expect(await focused()).toEqual({ text: 'Ask', outline: 'solid' });
    await p.keyboard.press('Enter');
    await p.getByRole('heading', { name: 'Ask' }).waitFor();
    await p.keyboard.press('Tab');
    await p.keyboard.type('what is 2+3?');
    await p.keyboard.press('Tab');
    await p.keyboard.press('Tab');
    expect((await focused()).text).toBe('Ask');
    await p.keyboard.press('Enter');
    await p.locator('[data-run-state="complete"]').waitFor();
    expect(await p.locator('.answer').textContent()).toContain('5');
  });
});

describe('ask', () => {
  it('shows the calculator call as it happens, then the answer with provider, tools used and cost', async () => {
    const p = await page();
    await openPanel(p, 'Ask');
    await p.fill('#ask-message', 'what is 17*23?');
    await p.getByRole('button', { name: 'Ask', exact: true }).click();
    const call = p.getByRole('list', { name: 'Tool calls' }).getByRole('listitem').first();
    expect(await call.textContent()).toContain('calculator({"expression":"17*23"})');
    await p.locator('[data-run-state="complete"]').waitFor();
    expect(await text(p, '.answer')).toContain('391');
    const facts = await text(p, '.run dl.facts');
    expect(facts).toContain('Provideroffline');
    expect(facts).toContain('Tools usedcalculator');
    expect(facts).toMatch(/Cost\$\d/);
  });

  it('stops a slow run: the Stop button cancels it on the service', async () => {
    const p = await page();
    await openPanel(p, 'Ask');
    await p.selectOption('#ask-provider', 'openai');
    await p.fill('#ask-message', 'take your time');
    await p.getByRole('button', { name: 'Ask', exact: true }).click();
    await p.locator('[data-run-state="running"]').waitFor();
    const runId = (await text(p, '.run .mono')).trim();
    expect(runId).toMatch(/^run_/);
    await p.getByRole('button', { name: 'Stop' }).click();
    await p.locator('[data-run-state="cancelled"]').waitFor();
    expect((await apiData<{ status: string }>(`/api/v1/runs/${runId}`)).status).toBe('cancelled');
  });
});

describe('ask over a dropped connection', () => {
  it('reconnects with Last-Event-ID and still gets the end of the run', async () => {
    const p = await page();
    const streams: Promise<string | undefined>[] = [];
    p.on('request', (request) => {
      if (new URL(request.url()).pathname.endsWith('/events')) streams.push(request.allHeaders().then((headers) => headers['last-event-id']));
    });
    await openPanel(p, 'Ask');
    await p.selectOption('#ask-provider', 'openai');
    await p.fill('#ask-message', 'wait for me');
    await p.getByRole('button', { name: 'Ask', exact: true }).click();
    await p.locator('[data-run-state="running"]').waitFor();
    // The connection drops (as through a proxy restart): the service closes every socket it holds.
    t.app.http.server.closeAllConnections();
    await p.locator('[data-run-state="reconnecting"]').waitFor();
    // The browser retries after the service's `retry: 3000`, naming the last event it saw (run.start, id 1).
    await expect.poll(() => streams.length, { timeout: 8_000 }).toBeGreaterThanOrEqual(2);
    expect(await Promise.all(streams.slice(0, 2))).toEqual([undefined, '1']);
    await p.locator('[data-run-state="running"]').waitFor();
    await p.getByRole('button', { name: 'Stop' }).click();
    await p.locator('[data-run-state="cancelled"]').waitFor();
  });
});

describe('sessions and memory', () => {
  it('pins a turn from a session\'s history, then finds it pinned in memory; unpins and deletes it there', async () => {
    const chat = await apiData<{ session_id: string }>('/api/v1/chat', {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'remember the walrus named kappa' }),
    });
    const p = await page();
    await openPanel(p, 'Sessions');
    await p.getByRole('link', { name: chat.session_id, exact: true }).click();
    const userTurn = p.locator('.turn', { hasText: 'remember the walrus named kappa' });
    await userTurn.getByRole('button', { name: /^Pin turn/ }).click();
    await userTurn.getByRole('button', { name: /^Unpin turn/ }).waitFor();

    await openPanel(p, 'Memory');
    await p.fill('#memory-q', 'walrus kappa');
    const found = p.getByRole('list', { name: 'Matching turns' }).locator('.turn').first();
    expect(await found.textContent()).toContain('pinned');
    expect(new URLSearchParams(hashOf(p).split('?')[1]).get('q')).toBe('walrus kappa');
    const history = () => apiData<{ turns: { content: string; pinned: boolean }[] }>(`/api/v1/sessions/${chat.session_id}/history`);
    expect((await history()).turns.find((turn) => turn.content === 'remember the walrus named kappa')?.pinned).toBe(true);

    await found.getByRole('button', { name: /^Unpin turn/ }).click();
    await found.getByRole('button', { name: /^Pin turn/ }).waitFor();
    expect((await history()).turns.find((turn) => turn.content === 'remember the walrus named kappa')?.pinned).toBe(false);

    const question = acceptNextDialog(p);
    await found.getByRole('button', { name: /^Delete turn/ }).click();
    expect(await question).toContain('permanently');
    await p.getByText('No turn matches.').waitFor();
    expect((await history()).turns.some((turn) => turn.content === 'remember the walrus named kappa')).toBe(false);
  });
});

describe('scheduled jobs', () => {
  it('shows the API\'s validation error under the field, then creates, pauses (after the dialog) and removes a job', async () => {
    const p = await page();
    await openPanel(p, 'Scheduled jobs');
    await p.fill('#job-name', 'morning digest');
    await p.fill('#job-schedule', 'whenever you like');
    await p.fill('#job-task', 'summarise the news');
    await p.getByRole('button', { name: 'Create job' }).click();
    const fieldError = p.locator('#job-schedule-error');
    expect(await fieldError.textContent()).toContain('schedule');
    expect(await p.locator('#job-schedule').getAttribute('aria-invalid')).toBe('true');
    expect((await apiData<{ jobs: unknown[] }>('/api/v1/scheduler/jobs')).jobs).toHaveLength(0);

    await p.fill('#job-schedule', 'every 5 minutes');
    await p.getByRole('button', { name: 'Create job' }).click();
    await p.getByText('Job "morning digest" created.').waitFor();
    const row = p.getByRole('row', { name: /morning digest/ });
    expect(await row.textContent()).toContain('active');
    const [job] = (await apiData<{ jobs: { id: string; state: string; next_run_at: string }[] }>('/api/v1/scheduler/jobs')).jobs;
    expect(await row.textContent()).toContain(job!.next_run_at.slice(0, 16).replace('T', ' '));

    const pauseQuestion = acceptNextDialog(p);
    await row.getByRole('button', { name: 'Pause' }).click();
    expect(await pauseQuestion).toContain('Pause the job "morning digest"?');
    await row.getByRole('button', { name: 'Resume' }).waitFor();
    expect(await row.textContent()).toContain('paused');
    expect((await apiData<{ jobs: { state: string }[] }>('/api/v1/scheduler/jobs')).jobs[0]!.state).toBe('paused');

    // Saying no to the dialog changes nothing.
    p.once('dialog', (dialog) => void dialog.dismiss());
    await row.getByRole('button', { name: 'Remove' }).click();
    expect((await apiData<{ jobs: unknown[] }>('/api/v1/scheduler/jobs')).jobs).toHaveLength(1);

    const removeQuestion = acceptNextDialog(p);
    await row.getByRole('button', { name: 'Remove' }).click();
    expect(await removeQuestion).toContain('Remove the job "morning digest"?');
    await p.getByText('No scheduled jobs.').waitFor();
    expect((await apiData<{ jobs: unknown[] }>('/api/v1/scheduler/jobs')).jobs).toHaveLength(0);
  });

  it('lists a page of jobs with a preview of each task, pages on with "More jobs", and opens a job for its whole task', async () => {
    const long = `check the ${'very '.repeat(100)}long report, api_key=Zq9sLmN0pQ7rT2`;
    const created: string[] = [];
    for (let i = 0; i < 52; i++) created.push((await t.app.scheduler.create({ name: `bulk ${String(i).padStart(2, '0')}`, schedule: 'daily at 09:00', task: i === 0 ? long : `task ${i}` })).id);
    try {
      const p = await page();
      await openPanel(p, 'Scheduled jobs');
      await p.getByText('Jobs 1–50 of 52').waitFor();
      const first = p.getByRole('row', { name: /bulk 00/ });
      const preview = await first.locator('td.task-preview').textContent();
      expect(preview).toContain(`check the ${'very '.repeat(38)}`);
      expect(preview).toContain(`… (${long.length - 'Zq9sLmN0pQ7rT2'.length + '[REDACTED]'.length} characters in all)`);
      expect(preview).not.toContain('long report');
      expect(await p.getByRole('row', { name: /bulk 51/ }).count()).toBe(0);

      await first.getByRole('button', { name: 'Whole task of job bulk 00' }).click();
      const task = p.locator('pre.job-task');
      await task.waitFor();
      expect(await task.textContent()).toBe(long.replace('Zq9sLmN0pQ7rT2', '[REDACTED]'));
      await p.getByRole('button', { name: 'Close task' }).click();

      await p.getByRole('button', { name: 'More jobs' }).click();
      await p.getByText('Jobs 51–52 of 52').waitFor();
      expect(hashOf(p)).toContain('offset=50');
      expect(await p.getByRole('row', { name: /bulk 51/ }).count()).toBe(1);
      expect(await p.getByRole('button', { name: 'More jobs' }).isDisabled()).toBe(true);
    } finally {
      for (const id of created) await t.app.scheduler.remove(id);
    }
  });
});

describe('controls', () => {
  it('sets the default provider after the confirmation dialog, and the status panel shows it', async () => {
    const p = await page();
    await openPanel(p, 'Controls');
    const setDefault = async (provider: string) => {
      const question = acceptNextDialog(p);
      await p.getByRole('button', { name: new RegExp(`^Apply: Set default provider, ${provider} `) }).click();
      expect(await question).toContain(provider);
      await p.getByRole('status').filter({ hasText: `→ ${provider}` }).waitFor();
    };
    await setDefault('openai');
    expect((await apiData<{ default_provider: string }>('/api/v1/status')).default_provider).toBe('openai');
    await openPanel(p, 'Status');
    expect(await text(p, 'dl.facts')).toContain('Default provideropenai');
    await openPanel(p, 'Controls');
    await setDefault('offline');
    expect((await apiData<{ default_provider: string }>('/api/v1/status')).default_provider).toBe('offline');
  });
});

describe('audit trail', () => {
  it('restores filters from a deep link, pages, filters by a clicked facet and shows an event with its chain hash', async () => {
    for (let i = 0; i < 23; i++) {
      await fetch(`${t.url}/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'api_key=wrong', redirect: 'manual' });
    }
    const denied = await apiData<{ total: number; events: { id: string; hash: string }[] }>('/api/v1/audit?result=deny&limit=20');
    expect(denied.total).toBeGreaterThan(20);

    // A link opened in a new tab of a signed-in browser: the page loads with the filter in place.
    const p = await (await page()).context().newPage();
    await p.goto(`${t.url}/#/audit?result=deny`);
    expect(await p.locator('#audit-result').inputValue()).toBe('deny');
    await p.getByText(`Events 1–20 of ${denied.total}`).waitFor();
    await p.getByRole('button', { name: 'Next' }).click();
    await p.getByText(`Events 21–${Math.min(40, denied.total)} of ${denied.total}`).waitFor();
    expect(hashOf(p)).toBe('#/audit?result=deny&offset=20');
    await p.getByRole('button', { name: 'Previous' }).click();
    await p.getByText(`Events 1–20 of ${denied.total}`).waitFor();

    // Cleared, the list holds every event; the result facet's "deny" narrows it back.
    await p.getByRole('button', { name: 'Clear' }).click();
    const all = await apiData<{ total: number }>('/api/v1/audit');
    expect(all.total).toBeGreaterThan(denied.total);
    await p.getByText(`Events 1–20 of ${all.total}`).waitFor();
    expect(await p.locator('#audit-result').inputValue()).toBe('');
    await p.getByRole('button', { name: `Filter result deny: ${denied.total} events` }).click();
    await p.getByText(`Events 1–20 of ${denied.total}`).waitFor();
    expect(hashOf(p)).toBe('#/audit?result=deny');
    await expect.poll(() => p.locator('#audit-result').inputValue()).toBe('deny');

    const newest = (await apiData<{ events: { id: string; hash: string; prev_hash: string }[] }>('/api/v1/audit?result=deny&limit=1')).events[0]!;
    await p.getByRole('table', { name: undefined }).getByRole('button').first().click();
    const detail = p.getByRole('complementary');
    expect(await detail.textContent()).toContain(newest.hash);
    expect(await detail.textContent()).toContain(newest.prev_hash);
    expect(await detail.textContent()).toContain(newest.id);
  });

  it('says "about" for a total and facet counts the API estimated past its count cap', async () => {
    if (!(t.app.storage instanceof SqliteStorage)) throw new Error('the app does not run on SQLite');
    const count = AUDIT_EXACT_TOTAL + 100;
    // Stamped up to now, after every event so far: chain order and time agree.
    const first = Date.now() - count;
    t.app.storage.audit.appendMany(Array.from({ length: count }, (_, n): AuditEvent => ({
      id: `evt_bulk_${n}`, timestamp: new Date(first + n).toISOString(), event_type: 'bulk.upload', category: 'network', result: 'allow',
      severity: 'info', subsystem: 'gateway', actor: null, source: null, action: null, session_id: null, task_id: null, detail: { n },
    })));
    const answer = await apiData<{ total: number; total_is_estimate: boolean }>('/api/v1/audit?q=bulk.upload');
    expect(answer.total_is_estimate).toBe(true);
    const about = `about ${answer.total.toLocaleString('en')}`;
    const p = await page();
    await p.goto(`${t.url}/#/audit?q=bulk.upload`);
    await p.getByText(`Events 1–20 of ${about}`).waitFor();
    await p.getByRole('button', { name: `Filter subsystem gateway: ${about} events` }).waitFor();
  });
});

describe('status badges', () => {
  it('draw an allowed result and a denied one in different colours: the pending-approvals count does not restyle them', async () => {
    await fetch(`${t.url}/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'api_key=wrong', redirect: 'manual' });
    const p = await page();
    const styleOf = async (result: 'allow' | 'deny') => {
      await p.goto(`${t.url}/#/audit?result=${result}`);
      await p.locator(`.badge-${result}`).first().waitFor();
      return inPage<{ color: string; background: string }>(p,
        `(() => { const style = getComputedStyle(document.querySelector('.badge-${result}')); return { color: style.color, background: style.backgroundColor }; })()`);
    };
    const allow = await styleOf('allow');
    const deny = await styleOf('deny');
    expect(allow.color).not.toBe(deny.color);
    // Outlined in their own colour, not filled like the count on the Approvals link.
    expect([allow.background, deny.background]).toEqual(['rgba(0, 0, 0, 0)', 'rgba(0, 0, 0, 0)']);
  });
});

describe('failures', () => {
  it('shows a refused request and an unreadable answer inside the panel, never a blank page', async () => {
    const p = await page();
    await p.route('**/api/v1/providers', (route) => route.fulfill({
      status: 500, contentType: 'application/json', body: JSON.stringify({ status: 'error', error: 'Internal server error' }),
    }));
    await openPanel(p, 'Providers');
    expect(await p.locator('.panel .error').textContent()).toBe('Internal server error');
    // An answer the panel cannot make sense of is reported in its place, the rest still works.
    await p.route('**/api/v1/overview', (route) => route.fulfill({ status: 200, contentType: 'application/json', body: '{"status":"ok","data":{}}' }));
    await openPanel(p, 'Tools');
    await p.getByRole('navigation', { name: 'Panels' }).getByRole('link', { name: 'Status' }).click();
    expect(await p.getByRole('alert').textContent()).toMatch(/^This panel could not be shown: /);
    await p.unroute('**/api/v1/overview');
    await openPanel(p, 'Costs');
    expect(await p.locator('#panel-title').textContent()).toBe('Costs');
  });
});

describe('hostile values', () => {
  const SCRIPT = '<script>window.__owned = "script"</script>';
  const IMG = '"><img src=x onerror="window.__owned = \'img\'">';

  it('shows markup from a turn and from an audit detail as literal text', async () => {
    const hostile = `look: ${SCRIPT} and ${IMG}`;
    const chat = await apiData<{ session_id: string }>('/api/v1/chat', {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: hostile }),
    });
    // A denied control records the target it was given: hostile text in an audit detail.
    const refused = await postJson(t, '/api/v1/controls/provider.set_default', { target: IMG, confirm: 'x' });
    expect(refused.status).toBe(404);

    const p = await page();
    await p.goto(`${t.url}/#/sessions?id=${encodeURIComponent(chat.session_id)}`);
    const turnText = p.locator('.turn-text').first();
    expect(await turnText.textContent()).toBe(hostile);

    await p.goto(`${t.url}/#/audit?q=onerror&event_type=web.control`);
    await p.getByRole('table').getByRole('button').first().click();
    expect(await p.locator('.audit-json').textContent()).toContain(JSON.stringify(IMG).slice(1, -1));
    expect(await p.locator('img').count()).toBe(0);
    expect(await inPage(p, 'window.__owned')).toBeUndefined();
  });
});

/** What each panel shows beyond its first screen, so the screenshots and axe see it filled in. */
const showContent: Record<string, (p: Page) => Promise<void>> = {
  Ask: async (p) => {
    await p.fill('#ask-message', 'what is 6*7?');
    await p.getByRole('button', { name: 'Ask', exact: true }).click();
    await p.locator('[data-run-state="complete"]').waitFor();
  },
  Sessions: async (p) => {
    await p.getByRole('region', { name: 'API sessions' }).locator('tbody tr td:first-child a').first().click();
    await p.locator('.turn').first().waitFor();
  },
  Memory: async (p) => {
    await p.fill('#memory-q', 'what');
    await p.getByRole('list', { name: 'Matching turns' }).waitFor();
  },
  'Audit trail': (p) => p.getByRole('table').getByRole('button').first().click(),
  Runs: async (p) => {
    await p.getByRole('region', { name: 'Runs' }).getByRole('link').first().click();
    await p.locator('.trace').waitFor();
  },
};

describe('every panel', () => {
  it('renders at 1280 and 390 px without serious accessibility violations; screenshots in test-results/screenshots', async () => {
    const found: (AxeViolation & { panel: string })[] = [];
    for (const viewport of [DESKTOP, PHONE]) {
      const width = `${viewport.width}px`;
      const p = await page(viewport);
      const labels = await p.getByRole('navigation', { name: 'Panels' }).getByRole('link').allTextContents();
      expect(labels).toHaveLength(14);
      for (const label of labels) {
        await openPanel(p, label);
        await showContent[label]?.(p);
        await untilLoaded(p);
        const name = label.toLowerCase().replace(/\s+/g, '-');
        await screenshot(p, `${name}-${width}`);
        found.push(...(await seriousAxeViolations(p)).map((v) => ({ ...v, panel: `${label} (${width})` })));
        expect(await p.locator('.error').count(), `${label} shows an error`).toBe(0);
        // Nothing sticks out sideways: wide tables scroll inside their own box.
        expect(await inPage<number>(p, 'document.documentElement.scrollWidth'), `${label} is wider than the screen`).toBeLessThanOrEqual(viewport.width);
      }
    }
    expect(found).toEqual([]);
  }, 120_000);
});

afterAll(async () => {
  for (const p of pages) await p.context().close().catch(() => {});
});
