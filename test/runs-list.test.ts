import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { eventually, finishedRun, json, postJson, startRun } from './helpers/agent.js';
import type { TestApp } from './helpers/app.js';
import { perTest } from './helpers/per-test.js';
import { TestClock } from './helpers/scheduler.js';

const T0 = '2026-01-05T12:00:00.000Z';
const MINUTE = 60_000;
const SECRET = 'runs-list-webhook-secret';
const iso = (ms: number) => new Date(ms).toISOString();

const { app } = perTest();

const list = async (t: TestApp, query = ''): Promise<any> => {
  const response = await t.request(`/api/v1/runs${query ? `?${query}` : ''}`);
  expect(response.status).toBe(200);
  return (await json(response)).data;
};
const ids = async (t: TestApp, query = ''): Promise<string[]> => (await list(t, query)).runs.map((run: any) => run.run_id);

async function webhookRun(t: TestApp, sender: string): Promise<any> {
  const body = JSON.stringify({ prompt: 'what is 6*7?', sender });
  const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
  const response = await fetch(`http://127.0.0.1:${t.app.webhook!.channel.port}/`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-service-signature': signature }, body,
  });
  expect(response.status).toBe(202);
  return eventually(async () => {
    const [run] = await t.app.agent.listRuns(`webhook:${sender}`, 1);
    return run?.status === 'complete' ? run : undefined;
  });
}

async function jobRun(t: TestApp, clock: TestClock): Promise<{ job: any; run: any }> {
  const job = (await json(await postJson(t, '/api/v1/scheduler/jobs', { name: 'tick', schedule: 'every 1 minutes', task: 'what time is it?' }))).data;
  clock.advance(MINUTE);
  const run = await eventually(async () => {
    await t.app.scheduler.runner.tick();
    const [fired] = await t.app.agent.listRuns(`job:${job.id}`, 1);
    return fired?.status === 'complete' ? fired : undefined;
  });
  return { job, run };
}

/** An API run, a job's fire, a webhook message's run and another API run, a minute apart. */
async function fourRuns() {
  const clock = new TestClock(Date.parse(T0));
  const t = await app({ now: clock.now, config: { webhook: { enabled: true, port: 0, secret: SECRET } } });
  const first = await startRun(t, { message: 'what is 1+1?' });
  await finishedRun(t, first.run_id);
  const { job, run: fired } = await jobRun(t, clock);
  clock.advance(MINUTE);
  const hook = await webhookRun(t, 'ci');
  clock.advance(MINUTE);
  const last = await startRun(t, { message: 'what is 2+2?' });
  await finishedRun(t, last.run_id);
  return { t, job, runs: { first, fired, hook, last } };
}

describe('GET /api/v1/runs without session_id', () => {
  it('lists every session\'s runs newest first, each with its source and job; filters and pages', async () => {
    const { t, job, runs } = await fourRuns();
    const page = await list(t);
    expect(page.runs.map((run: any) => run.run_id)).toEqual([runs.last.run_id, runs.hook.run_id, runs.fired.run_id, runs.first.run_id]);
    expect(page).toMatchObject({ total: 4, total_capped: false, has_more: false });
    expect(page.runs.map((run: any) => [run.source, run.job_id, run.session_id])).toEqual([
      ['api', null, runs.last.session_id],
      ['webhook', null, 'webhook:ci'],
      ['job', job.id, `job:${job.id}`],
      ['api', null, runs.first.session_id],
    ]);
    // The session's own list carries the two fields as well, and is otherwise as it was.
    const [ofSession] = (await list(t, `session_id=${encodeURIComponent(`job:${job.id}`)}`)).runs;
    expect(ofSession).toEqual(page.runs[2]);
    expect(Object.keys(await list(t, `session_id=${runs.first.session_id}`))).toEqual(['runs']);

    expect(await ids(t, 'source=job')).toEqual([runs.fired.run_id]);
    expect(await ids(t, 'source=webhook')).toEqual([runs.hook.run_id]);
    expect(await ids(t, 'source=api')).toEqual([runs.last.run_id, runs.first.run_id]);
    expect(await ids(t, `job_id=${job.id}`)).toEqual([runs.fired.run_id]);
    expect(await ids(t, 'job_id=job_unknown')).toEqual([]);
    expect(await ids(t, 'status=complete&source=api')).toEqual([runs.last.run_id, runs.first.run_id]);
    expect(await ids(t, 'status=running')).toEqual([]);
    const since = encodeURIComponent(iso(Date.parse(T0) + MINUTE));
    const until = encodeURIComponent(iso(Date.parse(T0) + 3 * MINUTE));
    expect(await ids(t, `since=${since}&until=${until}`)).toEqual([runs.hook.run_id, runs.fired.run_id]);
    // An offset is read as one: 13:01+01:00 is 12:01Z.
    expect(await ids(t, `since=${encodeURIComponent('2026-01-05T13:01:00+01:00')}&source=job`)).toEqual([runs.fired.run_id]);

    expect(await list(t, 'limit=2')).toMatchObject({ total: 4, has_more: true });
    const second = await list(t, 'limit=2&offset=2');
    expect(second.runs.map((run: any) => run.run_id)).toEqual([runs.fired.run_id, runs.first.run_id]);
    expect(second.has_more).toBe(false);
    expect(await list(t, 'offset=9')).toMatchObject({ runs: [], total: 4, has_more: false });
    expect((await list(t, 'limit=1000')).runs).toHaveLength(4);
  });

  it('refuses a parameter it cannot read with a 400 naming it', async () => {
    const t = await app();
    const cases: [string, RegExp][] = [
      ['status=waiting', /"status" must be one of pending, running, complete, error, cancelled/],
      ['source=email', /"source" must be one of api, job, webhook, discord/],
      ['since=yesterday', /"since" must be an ISO 8601/],
      ['until=2026-13-01T00:00:00Z', /"until" must be an ISO 8601/],
      ['since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z', /"until" must be later than "since"/],
      ['limit=two', /limit must be an integer/],
      ['offset=-1', /offset must be a non-negative integer/],
      ['session_id=ses_x&status=complete', /"status" applies only without session_id/],
      ['session_id=ses_x&offset=5', /"offset" applies only without session_id/],
    ];
    for (const [query, message] of cases) {
      const response = await t.request(`/api/v1/runs?${query}`);
      expect({ query, status: response.status }).toEqual({ query, status: 400 });
      const body = await json(response);
      expect(body.code).toBe('AGENTD_VALIDATION');
      expect(body.error).toMatch(message);
    }
  });
});
