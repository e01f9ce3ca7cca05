import { describe, expect, it } from 'vitest';
import { MAX_JOBS } from '../src/scheduler/index.js';
import type { SqliteStorage } from '../src/storage/sqlite/index.js';
import { eventually, json, postJson, readEvents } from './helpers/agent.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { perTest } from './helpers/per-test.js';
import { storedEvents } from './helpers/audit.js';
import { TestClock } from './helpers/scheduler.js';

const T0 = '2026-01-05T12:00:00.000Z';
const MINUTE = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

const { app, home: newHome } = perTest();

/** A home folder that outlives one app (restarts), removed after the test. */
const home = () => newHome('agentd-jobs-');

const jobs = async (t: TestApp): Promise<any[]> => (await json(await t.request('/api/v1/scheduler/jobs'))).data.jobs;
const runsOf = async (t: TestApp, jobId: string): Promise<any[]> =>
  (await json(await t.request(`/api/v1/runs?session_id=${encodeURIComponent(`job:${jobId}`)}`))).data.runs;

/** The job once its latest fire has settled (the runner's own poll or an explicit pass does the firing). */
async function settledJob(t: TestApp, id: string, runCount: number): Promise<any> {
  return eventually(async () => {
    await t.app.scheduler.runner.tick();
    const job = (await jobs(t)).find((j) => j.id === id);
    return job.run_count === runCount && !['starting', 'running'].includes(job.last_status) ? job : undefined;
  });
}

const refusal = async (response: Response) => ({ status: response.status, body: await response.json() });
const envelope = (code: string, error: unknown = expect.any(String)) => ({ status: 'error', error, code });

describe('scheduled jobs over HTTP', () => {
  it('runs "tick" every minute, visible through runs, events and memory; the pause control stops it; diagnostics report it', async () => {
    const clock = new TestClock(Date.parse(T0));
    const t = await app({ now: clock.now });
    const created = await postJson(t, '/api/v1/scheduler/jobs', { name: 'tick', schedule: 'every 1 minutes', task: 'what time is it?' });
    expect(created.status).toBe(201);
    const job = (await json(created)).data;
    expect(job).toEqual({
      id: expect.stringMatching(/^job_/), name: 'tick', description: null, schedule: 'every 1 minutes', task: 'what time is it?',
      provider: null, active_hours: null, timezone: 'UTC', state: 'active', created_at: T0, next_run_at: iso(clock.ms + MINUTE),
      last_run_at: null, last_status: null, last_run_id: null, last_error: null, run_count: 0, skipped: 0, last_skipped_at: null,
      last_skip_reason: null, missed: 0, last_missed_at: null,
    });
    const { task: _task, ...listed } = job;
    expect(await jobs(t)).toEqual([{ ...listed, task_preview: 'what time is it?', task_chars: 16 }]);
    expect((await json(await t.request(`/api/v1/scheduler/jobs/${job.id}`))).data).toEqual(job);
    // The creation is audited with the client and the request's id, so its log lines can be found.
    const [createdEvent] = storedEvents(t.app.storage as SqliteStorage, 'scheduler.job.create');
    expect(createdEvent).toMatchObject({ source: '127.0.0.1', task_id: job.id, detail: { request_id: created.headers.get('x-request-id') } });

    clock.advance(MINUTE);
    const first = await settledJob(t, job.id, 1);
    expect(first).toMatchObject({ last_status: 'complete', last_run_at: iso(clock.ms), next_run_at: iso(clock.ms + MINUTE) });
    const [run] = await runsOf(t, job.id);
    expect(run).toMatchObject({ run_id: first.last_run_id, session_id: `job:${job.id}`, status: 'complete', tools_used: ['current_time'] });
    const { events } = await readEvents(t, run.run_id);
    expect(events.map((e) => e.event)).toEqual(['run.start', 'tool.request', 'tool.result', 'run.complete']);
    const found = (await json(await t.request(`/api/v1/memory/search?q=time&session_id=${encodeURIComponent(`job:${job.id}`)}`))).data.results;
    expect(found.map((turn: any) => turn.role)).toContain('user');

    clock.advance(MINUTE);
    await settledJob(t, job.id, 2);
    expect(await runsOf(t, job.id)).toHaveLength(2);

    const paused = await postJson(t, '/api/v1/controls/scheduler.pause_job', { target: job.id, confirm: `pause-job:${job.id}` });
    expect(paused.status).toBe(200);
    expect((await json(paused)).data).toEqual({ control: 'scheduler.pause_job', target: job.id, previous: 'active', current: 'paused' });
    for (let i = 0; i < 5; i++) {
      clock.advance(MINUTE);
      await t.app.scheduler.runner.tick();
    }
    expect(await runsOf(t, job.id)).toHaveLength(2);
    expect((await jobs(t))[0]).toMatchObject({ state: 'paused', next_run_at: null, run_count: 2, missed: 0 });

    const diagnostics = (await json(await t.request('/api/v1/diagnostics'))).data;
    const section = diagnostics.sections.find((s: any) => s.key === 'scheduler');
    expect(section).toMatchObject({ status: 'ok', checks: [{ name: 'jobs', status: 'ok', summary: '1 job(s): 0 active, 1 paused' }, { name: 'next_fires', summary: 'no job has a next fire' }] });
  });

  it('keeps jobs across a restart; fires missed while down show as a diagnostics warning with a remediation', async () => {
    const clock = new TestClock(Date.parse(T0));
    const dir = home();
    const first = await startTestApp({ home: dir, now: clock.now });
    const job = (await json(await postJson(first, '/api/v1/scheduler/jobs', {
      name: 'report', schedule: 'daily at 09:00', task: 'what is 6*7?', timezone: 'Europe/Paris', active_hours: '08:00-18:00', description: 'morning report',
    }))).data;
    expect(job.next_run_at).toBe('2026-01-06T08:00:00.000Z');
    await first.close();

    clock.set('2026-01-08T10:00:00.000Z'); // down through three mornings
    const second = await app({ home: dir, now: clock.now });
    await second.app.scheduler.runner.tick();
    const after = (await json(await second.request(`/api/v1/scheduler/jobs/${job.id}`))).data;
    expect(after).toMatchObject({ ...job, missed: 3, last_missed_at: '2026-01-08T08:00:00.000Z', next_run_at: '2026-01-09T08:00:00.000Z', run_count: 0 });
    expect(await runsOf(second, job.id)).toEqual([]);
    const section = (await json(await second.request('/api/v1/diagnostics'))).data.sections.find((s: any) => s.key === 'scheduler');
    expect(section.status).toBe('warn');
    expect(section.checks).toContainEqual({
      name: `missed:${job.id}`, status: 'warn',
      summary: `job "report" (${job.id}) missed 3 fire(s) in total, the last due at 2026-01-08T08:00:00.000Z; missed fires are not replayed`,
      remediation: expect.stringContaining('supervisor'),
    });
    expect(storedEvents(second.app.storage as SqliteStorage, 'scheduler.job.missed').map((e) => e.detail.missed)).toEqual([3]);
  });

  it('refuses bad input with a 400 (413 for a long task) naming the field, and stores nothing', async () => {
    const t = await app({ now: new TestClock(Date.parse(T0)).now });
    const body = { name: 'x', schedule: 'every 5 minutes', task: 'what is 1+1?' };
    const cases: [unknown, number, string, string | RegExp][] = [
      [{ schedule: 'every 5 minutes', task: 't' }, 400, 'AGENTD_VALIDATION', 'field "name" is required'],
      [{ name: 'x', task: 't' }, 400, 'AGENTD_VALIDATION', 'field "schedule" is required'],
      [{ ...body, task: undefined }, 400, 'AGENTD_VALIDATION', 'field "task" is required'],
      [{ ...body, name: 5 }, 400, 'AGENTD_VALIDATION', 'field "name" must be string'],
      [{ ...body, cron: '* * * * *' }, 400, 'AGENTD_VALIDATION', 'field "cron" is not allowed'],
      [[body], 400, 'AGENTD_VALIDATION', 'body must be a JSON object'],
      [{ ...body, name: ' ' }, 400, 'AGENTD_VALIDATION', 'field "name" must not be blank'],
      [{ ...body, name: 'n'.repeat(129) }, 400, 'AGENTD_VALIDATION', 'field "name" must NOT have more than 128 characters'],
      [{ ...body, description: 'd'.repeat(513) }, 400, 'AGENTD_VALIDATION', 'field "description" must NOT have more than 512 characters'],
      [{ ...body, task: 't'.repeat(32_001) }, 413, 'AGENTD_PAYLOAD_TOO_LARGE', 'field "task" is longer than 32000 characters'],
      [{ ...body, schedule: 'every 0 minutes' }, 400, 'AGENTD_VALIDATION', /^field "schedule" has "0" where N, a whole number of 1 or more, belongs; accepted forms: /],
      [{ ...body, schedule: 'at 2025-12-31 09:00' }, 400, 'AGENTD_VALIDATION', /^field "schedule" is in the past in UTC; accepted forms: /],
      [{ ...body, schedule: '0 9 * * 8' }, 400, 'AGENTD_VALIDATION', /^field "schedule" is not a valid cron expression: Invalid value for dayOfWeek: 8; accepted forms/],
      [{ ...body, timezone: 'Europe/Atlantis' }, 400, 'AGENTD_VALIDATION', /^field "timezone" is not an IANA time zone name/],
      [{ ...body, active_hours: '9-5' }, 400, 'AGENTD_VALIDATION', /^field "active_hours" must be HH:MM-HH:MM/],
      [{ ...body, provider: 'nope' }, 400, 'AGENTD_VALIDATION', /^field "provider" is refused: unknown provider 'nope'/],
      [{ ...body, provider: 'anthropic' }, 400, 'AGENTD_VALIDATION', /^field "provider" is refused: provider 'anthropic' is not available: /],
    ];
    for (const [input, status, code, message] of cases) {
      expect(await refusal(await postJson(t, '/api/v1/scheduler/jobs', input)), JSON.stringify(input).slice(0, 80))
        .toEqual({ status, body: envelope(code, typeof message === 'string' ? message : expect.stringMatching(message)) });
    }
    const wrongType = await t.request('/api/v1/scheduler/jobs', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' });
    expect(await refusal(wrongType)).toEqual({ status: 415, body: envelope('AGENTD_UNSUPPORTED_MEDIA_TYPE') });
    expect(await jobs(t)).toEqual([]);
  });

  it(`refuses a job past the limit of ${MAX_JOBS} with 409`, async () => {
    const t = await app();
    await Promise.all(Array.from({ length: MAX_JOBS }, (_, i) => t.app.scheduler.create({ name: `job ${i}`, schedule: 'daily at 09:00', task: 'hello' })));
    expect(await refusal(await postJson(t, '/api/v1/scheduler/jobs', { name: 'one more', schedule: 'daily at 09:00', task: 'hello' })))
      .toEqual({ status: 409, body: envelope('AGENTD_JOB_LIMIT', `job limit reached: at most ${MAX_JOBS} jobs; remove one before adding another`) });
    expect((await json(await t.request('/api/v1/scheduler/jobs'))).data).toMatchObject({ total: MAX_JOBS, has_more: true });
  });

  it('removes a job with DELETE only with its confirm string, in the body or the query, audited like the control', async () => {
    const t = await app();
    const job = (await json(await postJson(t, '/api/v1/scheduler/jobs', { name: 'gone', schedule: 'every 1 hours', task: 'hello' }))).data;
    const del = (query = '', body?: unknown) => t.request(`/api/v1/scheduler/jobs/${job.id}${query}`, {
      method: 'DELETE', ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    const mismatch = envelope('AGENTD_CONFIRM_MISMATCH', 'scheduler.remove_job needs confirm set to exactly "remove-job:<job id>" with <job id> replaced by the target');
    expect(await refusal(await del())).toEqual({ status: 409, body: mismatch });
    expect(await refusal(await del('?confirm=remove-job:<job id>'))).toEqual({ status: 409, body: mismatch });
    expect(await refusal(await del('', { confirm: `REMOVE-JOB:${job.id}` }))).toEqual({ status: 409, body: mismatch });
    expect(await refusal(await del(`?confirm=remove-job:${job.id}`, { confirm: 'remove-job:other' })))
      .toEqual({ status: 400, body: envelope('AGENTD_VALIDATION', 'confirm is given in both the body and the query, with different values; give it once') });
    expect(await jobs(t)).toHaveLength(1);

    const removed = await del('', { confirm: `remove-job:${job.id}` });
    expect(removed.status).toBe(200);
    expect((await json(removed)).data).toEqual({ control: 'scheduler.remove_job', target: job.id, previous: 'active', current: 'removed' });
    expect(await jobs(t)).toEqual([]);
    expect(await refusal(await del(`?confirm=${encodeURIComponent(`remove-job:${job.id}`)}`)))
      .toEqual({ status: 404, body: envelope('AGENTD_JOB_NOT_FOUND', `job "${job.id}" not found`) });

    const audit = storedEvents(t.app.storage as SqliteStorage, 'web.control');
    expect(audit.map((e) => [e.result, e.action, e.task_id, e.detail.result])).toEqual([
      ...Array(3).fill(['deny', 'scheduler.remove_job', job.id, 'denied']),
      ['allow', 'scheduler.remove_job', job.id, 'allowed'],
      ['deny', 'scheduler.remove_job', job.id, 'denied'],
    ]);
    expect(audit[3]!.detail).toMatchObject({ control: 'scheduler.remove_job', target: job.id, reason: 'confirmed', previous: 'active', current: 'removed' });
    expect(audit[0]!.detail.reason).toBe(mismatch.error);
  });
});
