import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeLlmServer } from './fakes/fake-llm-server.js';
import { eventually, finishedRun, json, postJson, startRun } from './helpers/agent.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { DESKTOP, inPage, openPanel, PHONE, screenshot, seriousAxeViolations, signedInPage, untilLoaded, type AxeViolation } from './helpers/browser.js';
import { startConsoleApp, type ConsoleApp } from './helpers/console-app.js';

/**
 * Ask as a conversation and the Runs panel, in a real Chromium against a real agentd. The offline
 * provider is the default; `openai` is a fake OpenAI server on 127.0.0.1 that answers what each
 * test queues (Markdown with hostile parts, or a reply that takes a minute, to be stopped).
 */
let app: ConsoleApp;
let browser: Browser;
let t: TestApp;
let scripted: FakeLlmServer;
const pages: Page[] = [];

beforeAll(async () => {
  // Streamed answers come in pieces of 8 characters, 60 ms apart: slow enough to watch them grow.
  app = await startConsoleApp({ upstream: { chunkDelayMs: 60 } });
  ({ t, browser, upstream: scripted } = app);
}, 60_000);

afterAll(async () => {
  for (const p of pages) await p.context().close().catch(() => {});
  await app?.close();
});

async function page(viewport = DESKTOP): Promise<Page> {
  const p = await signedInPage(browser, t, viewport);
  pages.push(p);
  return p;
}

const hashOf = (p: Page) => decodeURIComponent(new URL(p.url()).hash);
const conversation = (p: Page) => p.getByRole('list', { name: 'Conversation' });

const FIRST_ANSWER = [
  '## Result',
  '',
  'Run this:',
  '',
  '```js',
  'console.log("<b>hi</b>");',
  '```',
  '',
  'Read [the docs](https://example.com/docs) but not [this](javascript:window.__owned=1) nor [that](data:text/html,x).',
  '',
  'Raw: <img src=x onerror="window.__owned=2">',
].join('\n');

async function ask(p: Page, message: string, provider?: string): Promise<void> {
  if (provider) await p.selectOption('#ask-provider', provider);
  await p.fill('#ask-message', message);
  await p.getByRole('button', { name: 'Ask', exact: true }).click();
}

describe('ask as a conversation', () => {
  it('keeps two exchanges with Markdown answers across a reload and across leaving Ask', async () => {
    scripted.enqueue({ text: FIRST_ANSWER }, { text: 'Second: **bold** and `code`.' });
    const p = await page();
    await openPanel(p, 'Ask');
    // The empty choice names the provider that answers when none is chosen.
    // (filled in once GET /providers answered: polled, not read once)
    await expect.poll(() => p.locator('#ask-provider option[value=""]').textContent()).toBe('the default (offline)');

    await ask(p, 'show me some code', 'openai');
    await p.locator('[data-run-state="complete"]').waitFor();
    // Ctrl+Enter sends the second message from the text box.
    await p.fill('#ask-message', 'and now in bold');
    await p.locator('#ask-message').press('Control+Enter');
    await p.locator('[data-run-state="complete"]').nth(1).waitFor();
    expect(await conversation(p).locator('.turn-user .turn-text').allTextContents()).toEqual(['show me some code', 'and now in bold']);

    const checkAnswers = async () => {
      const list = conversation(p);
      expect(await list.locator('pre > code.language-js').textContent()).toBe('console.log("<b>hi</b>");');
      expect(await list.locator('h4').first().textContent()).toBe('Result');
      const docs = list.getByRole('link', { name: 'the docs' });
      expect(await docs.getAttribute('href')).toBe('https://example.com/docs');
      expect(await docs.getAttribute('rel')).toBe('noopener noreferrer');
      expect(await docs.getAttribute('target')).toBe('_blank');
      // javascript: and data: targets are text, not links; raw HTML is text too.
      expect(await list.locator('a[href^="javascript"], a[href^="data"]').count()).toBe(0);
      expect(await list.textContent()).toContain('[this](javascript:window.__owned=1)');
      expect(await list.textContent()).toContain('Raw: <img src=x onerror="window.__owned=2">');
      expect(await p.locator('img').count()).toBe(0);
      expect(await list.locator('strong', { hasText: 'bold' }).count()).toBe(1);
      expect(await inPage(p, 'window.__owned')).toBeUndefined();
    };
    await checkAnswers();
    const sessionId = (await p.locator('form a.mono').textContent())!;
    expect(sessionId).toMatch(/^sess_|^[\w-]+$/);
    expect(hashOf(p)).toBe(`#/ask?session=${sessionId}`);

    // A reload reads the stored turns back: both questions and both answers, still Markdown.
    await p.reload();
    await conversation(p).locator('.turn-assistant').nth(1).waitFor();
    expect(await conversation(p).locator('.turn-user .turn-text').allTextContents()).toEqual(['show me some code', 'and now in bold']);
    await checkAnswers();

    // Another panel and back (the plain Ask link, no session in it): the same conversation.
    await openPanel(p, 'Status');
    await openPanel(p, 'Ask');
    await conversation(p).locator('.turn-assistant').nth(1).waitFor();
    expect(await conversation(p).locator('.turn-user').count()).toBe(2);
    await checkAnswers();

    // A new conversation forgets it, here and after a reload.
    await p.getByRole('button', { name: 'New conversation' }).click();
    expect(await conversation(p).count()).toBe(0);
    await p.reload();
    await p.locator('#ask-message').waitFor();
    expect(await conversation(p).count()).toBe(0);
  });

  it('follows a run still going when Ask is opened again, and Stop cancels it on the service', async () => {
    scripted.enqueue({ text: 'too late', delayMs: 60_000 });
    const p = await page();
    await openPanel(p, 'Ask');
    await ask(p, 'take your time', 'openai');
    await p.locator('[data-run-state="running"]').waitFor();
    const runId = (await p.locator('.run a.mono').textContent())!;
    expect(runId).toMatch(/^run_/);

    await openPanel(p, 'Runs');
    await openPanel(p, 'Ask');
    await p.locator('[data-run-state="running"]').waitFor();
    expect(await p.locator('.run a.mono').textContent()).toBe(runId);
    expect(await conversation(p).locator('.turn-user .turn-text').allTextContents()).toEqual(['take your time']);
    await p.getByRole('button', { name: 'Stop' }).click();
    await p.locator('[data-run-state="cancelled"]').waitFor();
    expect((await json(await t.request(`/api/v1/runs/${runId}`))).data.status).toBe('cancelled');
    expect(await p.getByRole('button', { name: 'Ask', exact: true }).isEnabled()).toBe(true);
  });
});

/** Fires the job by hand once its first occurrence is due (every second), and hands back its run. */
async function jobRun(task: string): Promise<{ jobId: string; run: any }> {
  const job = (await json(await postJson(t, '/api/v1/scheduler/jobs', { name: 'console digest', schedule: 'every 1 seconds', task }))).data;
  try {
    const run = await eventually(async () => {
      await t.app.scheduler.runner.tick();
      const [fired] = (await json(await t.request(`/api/v1/runs?job_id=${job.id}`))).data.runs;
      return fired?.status === 'complete' ? fired : undefined;
    });
    return { jobId: job.id, run };
  } finally {
    await t.app.scheduler.remove(job.id);
  }
}

describe('runs panel', () => {
  it('reads a job\'s run: listed with its source, opened for its message, Markdown answer, links and audit events', async () => {
    const { jobId, run } = await jobRun('what is 12*12?');
    const p = await page();
    await p.goto(`${t.url}/#/runs?source=job`);
    const row = p.getByRole('row', { name: new RegExp(run.run_id) });
    await row.waitFor();
    expect(await row.textContent()).toContain('job');
    expect(await row.textContent()).toContain('what is 12*12?');
    expect(await p.locator('#runs-source').inputValue()).toBe('job');

    await row.getByRole('link', { name: run.run_id }).click();
    const trace = p.locator('.trace');
    await trace.waitFor();
    expect(hashOf(p)).toBe(`#/runs?run=${run.run_id}`);
    expect(await trace.locator('.turn-text').textContent()).toBe('what is 12*12?');
    expect(await trace.locator('.answer').textContent()).toContain('144');
    const facts = await trace.locator('dl.facts').textContent();
    expect(facts).toContain('Sourcejob');
    expect(facts).toContain('Provideroffline');
    expect(facts).toMatch(/Cost\$\d/);
    // The trace's model and timings, as GET /runs/{id} has them.
    const record = (await json(await t.request(`/api/v1/runs/${run.run_id}`))).data;
    expect(record.model).toBeTruthy();
    expect(facts).toContain(`Provideroffline (${record.model})`);
    expect(facts).toContain(`Took${record.trace.timings.total_ms} ms`);
    expect(await trace.getByRole('link', { name: 'Every run of this job' }).getAttribute('href')).toBe(`#/runs?job_id=${jobId}`);

    await trace.getByRole('link', { name: 'Its audit events' }).click();
    expect(hashOf(p)).toBe(`#/audit?task_id=${run.run_id}`);
    expect(await p.locator('#audit-task_id').inputValue()).toBe(run.run_id);
    const events = (await json(await t.request(`/api/v1/audit?task_id=${run.run_id}`))).data;
    expect(events.total).toBeGreaterThan(0);
    await p.getByText(`Events 1–${Math.min(20, events.total)} of ${events.total}`).waitFor();
  });

  it('filters by status and source, and pages through every run', async () => {
    const started: string[] = [];
    for (let i = 0; i < 21; i++) started.push((await startRun(t, { message: `page run ${i}` })).run_id);
    for (const id of started) await finishedRun(t, id);
    const all = (await json(await t.request('/api/v1/runs?limit=1'))).data.total as number;
    const api = (await json(await t.request('/api/v1/runs?source=api&status=complete&limit=1'))).data.total as number;
    expect(api).toBeGreaterThanOrEqual(21);

    const p = await page();
    await openPanel(p, 'Runs');
    await p.getByText(`Runs 1–20 of ${all}`).waitFor();
    // The newest run is first.
    expect(await p.getByRole('region', { name: 'Runs' }).getByRole('row').nth(1).textContent()).toContain('page run 20');
    await p.getByRole('button', { name: 'Older runs' }).click();
    await p.getByText(`Runs 21–${Math.min(40, all)} of ${all}`).waitFor();
    expect(hashOf(p)).toBe('#/runs?offset=20');
    await p.getByRole('button', { name: 'Newer runs' }).click();
    await p.getByText(`Runs 1–20 of ${all}`).waitFor();

    await p.selectOption('#runs-status', 'complete');
    await p.selectOption('#runs-source', 'api');
    await p.getByText(`Runs 1–20 of ${api}`).waitFor();
    expect(hashOf(p)).toBe('#/runs?status=complete&source=api');
    const sources = await p.getByRole('region', { name: 'Runs' }).locator('tbody tr td:nth-child(3)').allTextContents();
    expect(new Set(sources)).toEqual(new Set(['api']));

    await p.selectOption('#runs-status', 'error');
    await p.getByText('No runs match.').waitFor();
    expect(await p.getByRole('button', { name: 'Older runs' }).isDisabled()).toBe(true);
  });
});

describe('jobs panel', () => {
  it('links a job\'s last fire to its run\'s trace', async () => {
    const job = (await json(await postJson(t, '/api/v1/scheduler/jobs', { name: 'linked job', schedule: 'every 1 seconds', task: 'what is 3*3?' }))).data;
    try {
      const fired = await eventually(async () => {
        await t.app.scheduler.runner.tick();
        const found = (await json(await t.request(`/api/v1/scheduler/jobs/${job.id}`))).data;
        return found.last_run_id ? found : undefined;
      });
      await t.app.scheduler.pause(job.id);
      const p = await page();
      await openPanel(p, 'Scheduled jobs');
      const link = p.getByRole('row', { name: /linked job/ }).locator(`a[href="#/runs?run=${fired.last_run_id}"]`);
      await link.click();
      await p.locator('.trace').waitFor();
      expect(await p.locator('.trace h3 .mono').textContent()).toBe(fired.last_run_id);
    } finally {
      await t.app.scheduler.remove(job.id);
    }
  });
});

describe('ask and runs at desktop and phone width', () => {
  it('have no serious accessibility violations; screenshots in test-results/console', async () => {
    const found: (AxeViolation & { where: string })[] = [];
    const { run } = await jobRun('what is 5*5?');
    for (const [width, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
      scripted.enqueue({ text: FIRST_ANSWER });
      const p = await page(viewport);
      await openPanel(p, 'Ask');
      await ask(p, 'show me some code', 'openai');
      await p.locator('[data-run-state="complete"]').waitFor();
      const views: [string, () => Promise<void>][] = [
        ['ask', async () => {}],
        ['runs', () => openPanel(p, 'Runs')],
        ['run-trace', async () => {
          await p.goto(`${t.url}/#/runs?run=${run.run_id}`);
          await p.locator('.trace').waitFor();
        }],
      ];
      for (const [name, open] of views) {
        await open();
        await untilLoaded(p);
        await screenshot(p, `${name}-${width}`);
        found.push(...(await seriousAxeViolations(p)).map((v) => ({ ...v, where: `${name} (${width})` })));
        expect(await inPage<number>(p, 'document.documentElement.scrollWidth'), `${name} is wider than the screen`).toBeLessThanOrEqual(viewport.width);
      }
    }
    expect(found).toEqual([]);
  }, 60_000);
});

describe('a run\'s trace with a tool call and its approval', () => {
  it('follows the waiting run live, then shows the step with arguments, result, duration and the approval who decided', async () => {
    const guarded = await startTestApp({ config: { tools: { require_approval: ['calculator'] } } });
    try {
      const run = await startRun(guarded, { message: 'what is 7*6?' });
      const approval = await eventually(async () => {
        const list = (await json(await guarded.request('/api/v1/approvals?state=pending'))).data.approvals as any[];
        return list.find((a) => a.run_id === run.run_id);
      });
      const p = await signedInPage(browser, guarded);
      pages.push(p);
      await p.goto(`${guarded.url}/#/runs?run=${run.run_id}`);
      // Still going: the trace follows its stream, which says what it waits for.
      await p.locator('.trace [data-run-state="waiting_approval"]').waitFor();
      expect(await p.locator('.trace .waiting').textContent()).toContain('calculator');

      const decided = await postJson(guarded, `/api/v1/approvals/${approval.id}`, { decision: 'allow_once', confirm: `approve:${approval.id}` });
      expect(decided.status).toBe(200);
      await finishedRun(guarded, run.run_id);
      // Once it ends, the stored record (with its trace) is read again.
      const step = p.getByRole('list', { name: 'Tool steps' }).getByRole('listitem').first();
      await step.waitFor();
      const record = (await json(await guarded.request(`/api/v1/runs/${run.run_id}`))).data;
      const traced = record.trace.steps[0];
      expect(await step.locator('strong.mono').textContent()).toBe('calculator');
      expect(JSON.parse((await step.getByLabel('Arguments').textContent())!)).toEqual({ expression: '7*6' });
      expect(await step.textContent()).toContain(`${traced.duration_ms} ms`);
      expect(await step.locator('pre.trace-json').nth(1).textContent()).toBe(traced.result_preview);
      expect(traced.result_preview).toContain('42');
      expect(await step.locator(`[data-approval]`).textContent()).toContain(approval.id);
      expect(await step.locator(`[data-approval]`).textContent()).toContain(`by ${traced.approval.decided_by}`);
      expect(await p.locator('.trace .answer').textContent()).toContain('42');
      expect(await p.getByRole('list', { name: 'Approvals of this run' }).textContent()).toContain('calculator');
    } finally {
      await guarded.close();
    }
  });
});

describe('a streamed answer', () => {
  it('grows in the answer element piece by piece before the run completes', async () => {
    const words = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    scripted.enqueue({ text: `Streaming: ${words}.` });
    const p = await page();
    await openPanel(p, 'Ask');
    await ask(p, 'stream to me', 'openai');
    // Observed in the page every 50 ms: the answer's text while the run is still going.
    const seen = await inPage<string[]>(p, `new Promise((resolve) => {
      const seen = [];
      const timer = setInterval(() => {
        const answer = document.querySelector('.run .answer');
        const done = document.querySelector('[data-run-state="complete"]');
        if (answer && !done && answer.textContent && seen[seen.length - 1] !== answer.textContent) seen.push(answer.textContent);
        if (done) { clearInterval(timer); resolve(seen); }
      }, 50);
    })`);
    const final = `Streaming: ${words}.`;
    expect(await p.locator('.run .answer').textContent()).toBe(final);
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (const partial of seen) expect(final.startsWith(partial)).toBe(true);
    expect(seen[0]!.length).toBeLessThan(seen[seen.length - 1]!.length);
  });

  it('shows a viewer who comes back mid-answer the answer so far at once, then the rest', async () => {
    const final = `Long answer: ${Array.from({ length: 90 }, (_, i) => `part${i}`).join(' ')}.`;
    scripted.enqueue({ text: final });
    const p = await page();
    await openPanel(p, 'Ask');
    await ask(p, 'a long one please', 'openai');
    await expect.poll(async () => ((await p.locator('.run .answer').textContent()) ?? '').length, { timeout: 10_000 }).toBeGreaterThan(40);
    await openPanel(p, 'Status');
    await openPanel(p, 'Ask');
    // The first text the new viewer shows is the answer so far (one run.text), not just the next piece.
    const first = await inPage<{ text: string; complete: boolean }>(p, `new Promise((resolve) => {
      const timer = setInterval(() => {
        const answer = document.querySelector('.run .answer');
        if (answer && answer.textContent) {
          clearInterval(timer);
          resolve({ text: answer.textContent, complete: document.querySelector('[data-run-state="complete"]') !== null });
        }
      }, 20);
    })`);
    expect(first.complete).toBe(false);
    expect(first.text.length).toBeGreaterThan(40);
    expect(final.startsWith(first.text)).toBe(true);
    await p.locator('[data-run-state="complete"]').waitFor();
    expect(await p.locator('.run .answer').textContent()).toBe(final);
  });
});
