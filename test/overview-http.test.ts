import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeLlmServer } from './fakes/fake-llm-server.js';
import { startFakeOpenAI } from './fakes/openai-server.js';
import { eventually, finishedRun, json, startRun } from './helpers/agent.js';
import { startTestApp, type TestApp } from './helpers/app.js';

/**
 * GET /api/v1/overview answers what the Status panel shows, in one request, with the same figures
 * as the endpoints it stands in for. Over real HTTP on a real SQLite file; runs go through the
 * offline provider and a fake OpenAI upstream, a run waits on a real approval.
 */
const CAP = 1;
let t: TestApp;
let upstream: FakeLlmServer;

beforeAll(async () => {
  upstream = await startFakeOpenAI();
  t = await startTestApp({
    env: { OPENAI_API_KEY: 'sk-test-openai-0123456789abcdefghij' },
    config: {
      max_spend_usd: CAP,
      tools: { require_approval: ['calculator'] },
      providers: {
        default: 'offline',
        openai: { api_key_env: 'OPENAI_API_KEY', model: 'gpt-4.1-mini', base_url: upstream.baseUrl },
      },
      network: { allowed_hosts: [upstream.host] },
    },
  });
});

afterAll(async () => {
  await t?.close();
  await upstream?.close();
});

const data = async (path: string) => {
  const response = await t.request(path);
  expect(response.status).toBe(200);
  return (await json(response)).data;
};

describe('GET /api/v1/overview', () => {
  it('answers runs in flight and failed, hourly runs and spend, approvals, the next fires and the cap', async () => {
    const done = await startRun(t, { message: 'hello there' });
    expect((await finishedRun(t, done.run_id)).status).toBe('complete');
    upstream.enqueue({ error: { status: 400, message: 'the model refuses' } });
    const failed = await startRun(t, { message: 'fail please', provider: 'openai' });
    expect((await finishedRun(t, failed.run_id)).status).toBe('error');
    // The calculator needs an approval: this run stays running while it waits.
    const waiting = await startRun(t, { message: 'what is 9*9' });
    await eventually(async () => (await data('/api/v1/approvals?state=pending')).approvals.length === 1);

    const now = new Date().toISOString();
    for (const [session, cost] of [['ses_over', 1.5], ['ses_at', CAP], ['ses_under', 0.5]] as const) {
      await t.app.agent.costs.record({ session_id: session, run_id: null, provider: 'openai', model: 'gpt-4.1-mini', prompt_tokens: 1, completion_tokens: 1, cost_usd: cost, timestamp: now });
    }

    const jobs = [];
    for (const time of ['01:00', '05:00', '09:00', '13:00', '17:00']) {
      jobs.push(await t.app.scheduler.create({ name: `job at ${time}`, schedule: `daily at ${time}`, task: 'report' }));
    }
    const bySoonest = [...jobs].sort((a, b) => (a.next_run_at! < b.next_run_at! ? -1 : 1));
    // A paused job has no next fire: the soonest is paused, so the next three follow it.
    await t.app.scheduler.pause(bySoonest[0]!.id);

    const overview = await data('/api/v1/overview');

    const status = await data('/api/v1/status');
    expect({ ...overview.status, uptime_s: 0 }).toEqual({ ...status, uptime_s: 0 });
    expect(overview.status.webhook_queue_depth).toBeNull();

    expect(overview.runs.running).toBe(1);
    expect(overview.runs.pending).toBe(0);
    expect(overview.runs.in_flight.map((run: { run_id: string }) => run.run_id)).toEqual([waiting.run_id]);
    expect(overview.runs.recent_errors.map((run: { run_id: string }) => run.run_id)).toEqual([failed.run_id]);
    expect(overview.runs.recent_errors[0].error).toContain('the model refuses');
    const hour = `${done.created_at.slice(0, 13)}:00:00.000Z`;
    expect(overview.runs.hourly.hours).toContainEqual({ hour, status: 'complete', runs: 1 });
    expect(overview.runs.hourly).toEqual(await data(`/api/v1/runs/hourly?since=${encodeURIComponent(overview.runs.hourly.since)}`));
    expect(Math.abs(Date.now() - 24 * 3_600_000 - Date.parse(overview.runs.hourly.since))).toBeLessThan(60_000);

    expect(overview.pending_approvals).toBe(1);

    expect(overview.next_fires).toEqual(bySoonest.slice(1, 4).map((job) => ({ job_id: job.id, name: job.name, next_run_at: job.next_run_at })));

    const openai = overview.spend.hourly.hours.filter((h: { provider: string }) => h.provider === 'openai');
    expect(openai).toContainEqual({ hour: `${now.slice(0, 13)}:00:00.000Z`, provider: 'openai', model: 'gpt-4.1-mini', calls: 3, cost_usd: 3 });
    expect(overview.spend.hourly).toEqual(await data(`/api/v1/costs/hourly?since=${encodeURIComponent(overview.spend.hourly.since)}`));
    expect(overview.spend.max_spend_usd).toBe(CAP);
    // At the cap counts, as the cap refuses a session's next call there.
    expect(overview.spend.sessions_at_cap).toBe(2);

    const approval = (await data('/api/v1/approvals?state=pending')).approvals[0];
    const denied = await t.request(`/api/v1/approvals/${approval.id}`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ decision: 'deny', confirm: `deny:${approval.id}` }),
    });
    expect(denied.status).toBe(200);
    await finishedRun(t, waiting.run_id);
    for (const job of jobs) await t.app.scheduler.remove(job.id);
    const after = await data('/api/v1/overview');
    expect(after.runs.running).toBe(0);
    expect(after.runs.in_flight).toEqual([]);
    expect(after.pending_approvals).toBe(0);
    expect(after.next_fires).toEqual([]);
  });
});
