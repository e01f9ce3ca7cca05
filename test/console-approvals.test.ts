import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, json, readEvents, startRun } from './helpers/agent.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { launchChromium, seriousAxeViolations, signedInPage } from './helpers/browser.js';

/**
 * The console's Approvals panel in a real Chromium against a real agentd whose calculator needs
 * an operator's approval: a run waits, Ask shows it waiting, the operator approves it from the
 * panel through the browser's own confirm dialog, and the run completes.
 */
let browser: Browser;
let t: TestApp;
const pages: Page[] = [];

beforeAll(async () => {
  t = await startTestApp({ config: { tools: { require_approval: ['calculator', 'web_fetch'] } } });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function page(): Promise<Page> {
  const p = await signedInPage(browser, t);
  pages.push(p);
  return p;
}

async function pendingFor(runId: string): Promise<any> {
  return eventually(async () => {
    const list = (await json(await t.request('/api/v1/approvals?state=pending'))).data.approvals as any[];
    return list.find((a) => a.run_id === runId);
  });
}

const approvalsLink = (p: Page) => p.getByRole('navigation', { name: 'Panels' }).locator('a[href="#/approvals"]');

describe('approvals in the console', () => {
  it('shows a waiting run in Ask, counts it on the badge, and approves it after the native confirm dialog', async () => {
    const p = await page();
    await p.goto(`${t.url}/#/ask`);
    await p.fill('#ask-message', 'what is 2+3');
    await p.click('button[type="submit"]');
    await p.locator('[data-run-state="waiting_approval"]').waitFor();
    expect(await p.locator('.waiting').textContent()).toContain('calculator {"expression":"2+3"}');
    const runId = (await p.locator('.run .mono').first().textContent())!;
    const approval = await pendingFor(runId);
    // The run followed in Ask says it waits: the badge counts it at once, well before its next 15 s poll.
    await approvalsLink(p).locator('[data-pending-approvals="1"]').waitFor({ timeout: 5_000 });

    // The badge counts what waits (read when the console opens, and again after each decision).
    await p.reload();
    await approvalsLink(p).locator('[data-pending-approvals="1"]').waitFor();
    await approvalsLink(p).click();
    const card = p.locator(`[data-approval-id="${approval.id}"]`);
    expect(await card.locator('pre.request').textContent()).toBe('calculator {"expression":"2+3"}');
    expect(await seriousAxeViolations(p)).toEqual([]);

    // Saying no to the dialog decides nothing.
    p.once('dialog', (dialog) => void dialog.dismiss());
    await card.getByRole('button', { name: /^Deny:/ }).click();
    expect((await json(await t.request(`/api/v1/approvals/${approval.id}`))).data.state).toBe('pending');

    const question = new Promise<string>((resolve) => p.once('dialog', (dialog) => {
      resolve(dialog.message());
      void dialog.accept();
    }));
    await card.getByRole('button', { name: /^Allow once:/ }).click();
    expect(await question).toBe('Allow this request once?\n\ncalculator {"expression":"2+3"}');
    await p.getByRole('status').filter({ hasText: 'Tool call allowed (allow_once).' }).waitFor();
    await p.getByText('Nothing is waiting for a decision.').waitFor();
    await approvalsLink(p).locator('.count-badge').waitFor({ state: 'detached' });

    const decided = (await json(await t.request(`/api/v1/approvals/${approval.id}`))).data;
    expect(decided).toMatchObject({ state: 'allowed', decision: 'allow_once', decided_by: expect.stringMatching(/^web_session:/) });
    const { events } = await readEvents(t, runId);
    expect(JSON.parse(events.at(-1)!.data)).toMatchObject({ response: expect.stringContaining('5') });
  });

  it('denies from the panel: the run goes on without the tool', async () => {
    const run = await startRun(t, { message: 'what is 6*7' });
    const approval = await pendingFor(run.run_id);
    const p = await page();
    await p.goto(`${t.url}/#/approvals`);
    p.once('dialog', (dialog) => void dialog.accept());
    await p.locator(`[data-approval-id="${approval.id}"]`).getByRole('button', { name: /^Deny:/ }).click();
    await p.getByRole('status').filter({ hasText: 'Tool call denied (deny).' }).waitFor();
    const { events } = await readEvents(t, run.run_id);
    expect(JSON.parse(events.find((e) => e.event === 'tool.result')!.data)).toMatchObject({ is_error: true });
  });

  it('counts a run that starts waiting on the badge without a reload, and lists the decision among the recent ones', async () => {
    const p = await page();
    await p.goto(`${t.url}/#/status`);
    await p.getByRole('heading', { name: 'Runtime status' }).waitFor();
    await approvalsLink(p).locator('.count-badge').waitFor({ state: 'detached' });
    const run = await startRun(t, { message: 'what is 9*9' });
    const approval = await pendingFor(run.run_id);
    // No reload and no navigation: the badge polls every 15 s while the console is visible.
    await approvalsLink(p).locator('[data-pending-approvals="1"]').waitFor({ timeout: 17_000 });

    await approvalsLink(p).click();
    p.once('dialog', (dialog) => void dialog.accept());
    await p.locator(`[data-approval-id="${approval.id}"]`).getByRole('button', { name: /^Deny:/ }).click();
    await p.getByText('Nothing is waiting for a decision.').waitFor();
    await p.getByRole('button', { name: 'Recent, decided too' }).click();
    expect(new URL(p.url()).hash).toBe('#/approvals?show=decided');
    const row = p.locator(`tr[data-approval-id="${approval.id}"]`);
    // The decided list loads after the click: reading its cells at once could find no row yet.
    await row.waitFor();
    const cells = await row.locator('td').allTextContents();
    expect(cells.slice(1, 6)).toEqual(['Tool call', 'calculator {"expression":"9*9"}', 'denied', 'deny', expect.stringMatching(/^web_session:/)]);
    expect(await row.getByRole('link', { name: run.run_id }).getAttribute('href')).toBe(`#/runs?run=${run.run_id}`);
    expect(await seriousAxeViolations(p)).toEqual([]);
  }, 60_000);

  it('offers no "Allow for session" over an explicit REST deny rule, and says what a session grant would cover elsewhere', async () => {
    const rest = await startTestApp({
      config: {
        tools: { require_approval: ['calculator'] },
        network: { interactive_approval: 'api', allowed_hosts: ['127.0.0.1:9'], rest_policies: [{ host: '127.0.0.1', method: '*', path: '/admin/**', action: 'deny' }] },
      },
    });
    try {
      const denied = await startRun(rest, { message: 'fetch http://127.0.0.1:9/admin/delete-all' });
      const tool = await startRun(rest, { message: 'what is 2+3' });
      const pending = async (runId: string) => eventually(async () =>
        ((await json(await rest.request('/api/v1/approvals?state=pending'))).data.approvals as any[]).find((a) => a.run_id === runId));
      const [restApproval, toolApproval] = [await pending(denied.run_id), await pending(tool.run_id)];
      const p = await signedInPage(browser, rest);
      pages.push(p);
      await p.goto(`${rest.url}/#/approvals`);
      const restCard = p.locator(`[data-approval-id="${restApproval.id}"]`);
      await restCard.waitFor();
      expect(await restCard.getByRole('button').allTextContents()).toEqual(['Allow once', 'Deny']);
      expect(await restCard.locator('.grant').textContent()).toContain('network.rest_policies[0]');
      const toolCard = p.locator(`[data-approval-id="${toolApproval.id}"]`);
      expect(await toolCard.getByRole('button').allTextContents()).toEqual(['Allow once', 'Allow for session', 'Deny']);
      expect(await toolCard.locator('.grant').textContent()).toBe('every call of calculator for the rest of the session');
      expect(await seriousAxeViolations(p)).toEqual([]);
    } finally {
      await rest.close();
    }
  });

  it('shows a long request folded with its length, in the panel and in the dialog', async () => {
    const url = `http://127.0.0.1:9/x?q=${'v'.repeat(4000)}&tail=end`;
    const run = await startRun(t, { message: `fetch ${url}` });
    const approval = await pendingFor(run.run_id);
    const shown = `web_fetch {"url":"${url.slice(0, 1000)}…[folded: ${url.length - 1500} of ${url.length} characters]…${url.slice(-500)}"}`;
    expect(approval.request).toBe(shown);
    const p = await page();
    await p.goto(`${t.url}/#/approvals`);
    const card = p.locator(`[data-approval-id="${approval.id}"]`);
    expect(await card.locator('pre.request').textContent()).toBe(shown);
    const question = new Promise<string>((resolve) => p.once('dialog', (dialog) => {
      resolve(dialog.message());
      void dialog.accept();
    }));
    await card.getByRole('button', { name: /^Deny:/ }).click();
    expect(await question).toBe(`Deny this request?\n\n${shown}`);
    await p.getByRole('status').filter({ hasText: 'Tool call denied (deny).' }).waitFor();
  });
});
