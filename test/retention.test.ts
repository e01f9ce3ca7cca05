import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PRUNED_EVENT_TYPE } from '../src/storage/ports/audit.js';
import { eventually, json, postJson, readEvents, startRun } from './helpers/agent.js';
import { sqliteOf, startTestApp, type TestApp, type TestAppOptions } from './helpers/app.js';

const DAY_MS = 86_400_000;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const clean of cleanups.splice(0).reverse()) await clean();
});

async function app(options: TestAppOptions): Promise<TestApp> {
  const t = await startTestApp(options);
  cleanups.push(() => t.close());
  return t;
}

/** A home folder with a finished run, a chat and their costs and audit events, all "now". */
async function homeWithHistory(): Promise<{ home: string; runId: string; sessionId: string }> {
  const home = mkdtempSync(join(tmpdir(), 'agentd-retention-'));
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  const t = await startTestApp({ home });
  const run = await startRun(t, { message: 'what is 6*7?' });
  await readEvents(t, run.run_id);
  expect((await postJson(t, '/api/v1/chat', { message: 'hello', session_id: run.session_id })).status).toBe(200);
  await t.close();
  return { home, runId: run.run_id, sessionId: run.session_id };
}

const count = (t: TestApp, sql: string): number => (sqliteOf(t.app).prepare(sql).get() as { n: number }).n;

describe('retention of the tables that only grow', () => {
  it('prunes runs, their events and cost records past their age, and audit past a year, keeping the chain verifiable', async () => {
    const { home, runId, sessionId } = await homeWithHistory();
    const later = Date.now() + 400 * DAY_MS;
    const t = await app({ home, now: () => later });
    await eventually(() => t.log.lines.some((line) => line.includes('audit events older than 365 days')));

    expect((await t.request(`/api/v1/runs/${runId}`)).status).toBe(404);
    expect(count(t, 'SELECT count(*) AS n FROM run_events')).toBe(0);
    const costs = (await json(await t.request('/api/v1/costs/summary'))).data;
    expect(costs.totals.calls).toBe(0);
    expect(costs.sessions).toEqual([]);
    // Turns follow memory.retention_days (0 here): the conversation is still there.
    const history = (await json(await t.request(`/api/v1/memory/search?q=hello&session_id=${sessionId}`))).data.results;
    expect(history).toHaveLength(1);

    const events = sqliteOf(t.app).prepare('SELECT event_type, timestamp, detail FROM audit_events ORDER BY seq').all() as
      { event_type: string; timestamp: string; detail: string }[];
    const cutoff = new Date(later - 365 * DAY_MS).toISOString();
    expect(events.every((event) => event.timestamp >= cutoff)).toBe(true);
    const pruned = events.filter((event) => event.event_type === PRUNED_EVENT_TYPE).map((event) => JSON.parse(event.detail));
    expect(pruned.length).toBeGreaterThan(0);
    // The run's tool call and completion, and the chat's completion.
    expect(pruned.reduce((sum, detail) => sum + detail.removed, 0)).toBe(3);
    expect(await t.app.audit.verify()).toMatchObject({ ok: true });
    expect(t.log.lines.some((line) => /retention: removed 1 runs older than 90 days/.test(line))).toBe(true);
  });

  it('keeps everything younger than the limits, and everything at all when the limits are 0', async () => {
    const { home, runId } = await homeWithHistory();
    const t = await app({ home, now: () => Date.now() + 30 * DAY_MS });
    expect((await t.request(`/api/v1/runs/${runId}`)).status).toBe(200);
    await t.close();

    const forever = await app({
      home, now: () => Date.now() + 4000 * DAY_MS,
      config: { retention: { runs_days: 0, costs_days: 0, audit_days: 0 } },
    });
    expect((await forever.request(`/api/v1/runs/${runId}`)).status).toBe(200);
    expect((await json(await forever.request('/api/v1/costs/summary'))).data.totals.calls).toBeGreaterThan(0);
    expect(count(forever, `SELECT count(*) AS n FROM audit_events WHERE event_type = '${PRUNED_EVENT_TYPE}'`)).toBe(0);
  });

  it('prunes webhook replay records once their timestamp window (and a margin for other clocks) has passed, not before', async () => {
    const home = mkdtempSync(join(tmpdir(), 'agentd-retention-'));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    const webhook = { enabled: true, port: 0, secret: 'retention-secret', require_timestamp: true };
    const first = await startTestApp({ home, config: { webhook } });
    const now = Math.floor(Date.now() / 1000);
    // Two accepted requests: records expiring at now - 250 + 301 and now + 301.
    for (const [timestamp, prompt] of [[now - 250, 'what is 1+2?'], [now, 'what is 2+2?']] as const) {
      const body = JSON.stringify({ prompt, sender: 'ci' });
      const response = await fetch(`http://127.0.0.1:${first.app.webhook!.channel.port}/`, {
        method: 'POST', body, headers: {
          'content-type': 'application/json', 'x-service-timestamp': String(timestamp),
          'x-service-signature': `sha256=${createHmac('sha256', 'retention-secret').update(`${timestamp}.${body}`).digest('hex')}`,
        },
      });
      expect(response.status).toBe(202);
    }
    await eventually(async () => (await first.app.agent.listRuns('webhook:ci', 5)).filter((r) => r.status === 'complete').length === 2);
    await first.close();

    // 500 s after the newer one expired: still within the 10-minute margin, kept; the older one
    // expired 750 s ago and goes.
    const soon = await app({ home, config: { webhook }, now: () => (now + 301 + 500) * 1000 });
    await eventually(() => soon.log.lines.some((line) => line.includes('retention: removed 1 webhook replay records past their timestamp window')));
    expect(sqliteOf(soon.app).prepare('SELECT expires_at FROM channel_signatures').all()).toEqual([{ expires_at: new Date((now + 301) * 1000).toISOString() }]);
    await cleanups.pop()!();

    const later = await app({ home, config: { webhook }, now: () => (now + 301 + 601) * 1000 });
    await eventually(() => later.log.lines.some((line) => line.includes('retention: removed 1 webhook replay records past their timestamp window')));
    expect(count(later, 'SELECT count(*) AS n FROM channel_signatures')).toBe(0);
  });
});
