import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeLlmServer } from './fakes/fake-llm-server.js';
import { startFakeOpenAI } from './fakes/openai-server.js';
import { eventually, finishedRun, json, parseSse, postJson, rawGet, readEvents, startRun } from './helpers/agent.js';
import { sqliteOf, startTestApp, type TestApp } from './helpers/app.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

const ENV = { OPENAI_API_KEY: 'sk-test-openai-0123456789abcdefghij' };

async function fakeServer(delayMs: number): Promise<FakeLlmServer> {
  const server = await startFakeOpenAI({ delayMs });
  cleanups.push(() => server.close());
  return server;
}

function slowConfig(server: FakeLlmServer) {
  return {
    providers: { default: 'openai', openai: { api_key_env: 'OPENAI_API_KEY', model: 'gpt-4.1-mini', base_url: server.baseUrl } },
    network: { allowed_hosts: [server.host] },
  };
}

async function app(options: Parameters<typeof startTestApp>[0] = {}): Promise<TestApp> {
  const t = await startTestApp(options);
  cleanups.push(() => t.close());
  return t;
}

function tempHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'agentd-runs-'));
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  return home;
}

function auditCount(t: TestApp, eventType: string, result: string): number {
  return (sqliteOf(t.app).prepare('SELECT count(*) AS n FROM audit_events WHERE event_type = ? AND result = ?').get(eventType, result) as { n: number }).n;
}

describe('one run in flight per session', () => {
  it('refuses a second run and a chat on a busy session with 409, audited as web.run / web.chat deny', async () => {
    const server = await fakeServer(2000);
    const t = await app({ env: ENV, config: slowConfig(server) });
    const run = await startRun(t, { message: 'slow one' });

    const second = await postJson(t, '/api/v1/runs', { message: 'another', session_id: run.session_id });
    expect(second.status).toBe(409);
    expect(await json(second)).toEqual({ status: 'error', error: expect.stringMatching(/already in flight/), code: 'AGENTD_RUN_BUSY' });
    expect(auditCount(t, 'web.run', 'deny')).toBe(1);
    const chat = await postJson(t, '/api/v1/chat', { message: 'and a chat', session_id: run.session_id });
    expect(chat.status).toBe(409);
    expect(auditCount(t, 'web.chat', 'deny')).toBe(1);
    const row = sqliteOf(t.app).prepare("SELECT session_id, source FROM audit_events WHERE event_type = 'web.run'").get() as { session_id: string; source: string };
    expect(row).toEqual({ session_id: run.session_id, source: '127.0.0.1' });

    // Other sessions are not affected.
    expect((await postJson(t, '/api/v1/runs', { message: 'elsewhere', provider: 'offline' })).status).toBe(202);
    await t.request(`/api/v1/runs/${run.run_id}/cancel`, { method: 'POST' });
  });

  it('holds the session slot for a chat in flight: a run on it is refused until the chat answers', async () => {
    const server = await fakeServer(600);
    const t = await app({ env: ENV, config: slowConfig(server) });
    const session = (await json(await postJson(t, '/api/v1/sessions', {}))).data;
    const chat = postJson(t, '/api/v1/chat', { message: 'slow chat', session_id: session.id });
    await eventually(() => server.requests.length === 1);
    const refused = await postJson(t, '/api/v1/runs', { message: 'run', session_id: session.id });
    expect(refused.status).toBe(409);
    expect((await chat).status).toBe(200);
    expect((await postJson(t, '/api/v1/runs', { message: 'run', session_id: session.id, provider: 'offline' })).status).toBe(202);
  });

  it('cancels the run in flight when its session is deleted; the turns stay', async () => {
    const server = await fakeServer(5000);
    const t = await app({ env: ENV, config: slowConfig(server) });
    const run = await startRun(t, { message: 'remember the blue door' });
    await eventually(() => server.requests.length === 1);
    expect((await t.request(`/api/v1/sessions/${run.session_id}`, { method: 'DELETE' })).status).toBe(200);
    const done = await finishedRun(t, run.run_id);
    expect(done.status).toBe('cancelled');
    const { events } = await readEvents(t, run.run_id);
    expect(events.at(-1)!.event).toBe('run.cancelled');
    // The user turn was stored (a cancelled run still records what was asked) and survives the session.
    const found = await eventually(async () => {
      const results = (await json(await t.request('/api/v1/memory/search?q=blue+door'))).data.results;
      return results.length > 0 && results;
    });
    expect(found[0]).toMatchObject({ session_id: run.session_id, role: 'user' });
  });
});

describe('listing and reading runs', () => {
  it('lists a session\'s runs newest first with limits', async () => {
    const t = await app();
    const first = await startRun(t, { message: 'what is 1+1?' });
    await finishedRun(t, first.run_id);
    const ids = [first.run_id];
    for (let i = 0; i < 3; i++) {
      const run = await startRun(t, { message: `what is ${i}+1?`, session_id: first.session_id });
      await finishedRun(t, run.run_id);
      ids.push(run.run_id);
    }
    const list = (await json(await t.request(`/api/v1/runs?session_id=${first.session_id}`))).data.runs;
    expect(list.map((r: any) => r.run_id)).toEqual([...ids].reverse());
    expect(list[0]).toMatchObject({ status: 'complete', tools_used: ['calculator'], error: null, response: expect.any(String) });
    expect(list[0].started_at <= list[0].finished_at).toBe(true);
    expect((await json(await t.request(`/api/v1/runs?session_id=${first.session_id}&limit=2`))).data.runs).toHaveLength(2);
    expect((await json(await t.request(`/api/v1/runs?session_id=${first.session_id}&limit=1000`))).data.runs).toHaveLength(4);
    expect((await json(await t.request('/api/v1/runs?session_id=ses_none'))).data.runs).toEqual([]);
    // Without session_id: every session's runs (test/runs-list.test.ts).
    expect((await json(await t.request('/api/v1/runs'))).data.total).toBe(4);
    expect((await t.request(`/api/v1/runs?session_id=${first.session_id}&limit=two`)).status).toBe(400);
    expect((await t.request('/api/v1/runs/run_unknown')).status).toBe(404);
    // One run is the listed record and its trace (test/run-trace.test.ts).
    const { trace, ...one } = (await json(await t.request(`/api/v1/runs/${ids[1]}`))).data;
    expect(one).toEqual(list[2]);
    expect(trace.steps.map((step: any) => step.tool)).toEqual(['calculator']);
  });
});

describe('restart and shutdown', () => {
  it('marks a run left running by a dead process as error "interrupted by restart", with a terminal event', async () => {
    const home = tempHome();
    const before = await startTestApp({ home });
    const store = before.app.storage.runs;
    const now = new Date().toISOString();
    await store.create({
      run_id: 'run_orphan', session_id: 'ses_gone', message: 'm', status: 'pending', provider: null, resolved_provider: 'offline',
      created_at: now, started_at: null, finished_at: null, response: null, error: null, tools_used: [],
      cost: { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 }, source: 'api', job_id: null, model: null, first_token_at: null,
    });
    await store.start('run_orphan', now, { id: 1, name: 'run.start', data: JSON.stringify({ run_id: 'run_orphan', session_id: 'ses_gone', provider: 'offline' }) });
    expect((await store.get('run_orphan'))?.status).toBe('running');
    await before.app.close();

    const after = await app({ home });
    const run = (await json(await after.request('/api/v1/runs/run_orphan'))).data;
    expect(run).toMatchObject({ status: 'error', error: 'interrupted by restart', finished_at: expect.any(String) });
    const { events } = await readEvents(after, 'run_orphan');
    expect(events.map((e) => [e.id, e.event])).toEqual([['1', 'run.start'], ['2', 'run.error']]);
    expect(JSON.parse(events[1]!.data)).toMatchObject({ run_id: 'run_orphan', error: 'interrupted by restart', tools_used: [], cost: { cost_usd: 0 } });
    expect((await after.request('/api/v1/runs/run_orphan/events', { headers: { 'last-event-id': '2' } })).status).toBe(204);
  });

  it('ends in-flight runs with a stored terminal event on close, and ends their streams', async () => {
    const home = tempHome();
    const server = await fakeServer(10_000);
    const before = await startTestApp({ home, env: ENV, config: slowConfig(server) });
    const run = await startRun(before, { message: 'slow' });
    const stream = await rawGet(before.url, `/api/v1/runs/${run.run_id}/events`, { authorization: `Bearer ${before.apiKey}` });
    cleanups.push(() => stream.destroy());
    await stream.waitFor((body) => body.includes('event: run.start'));
    await eventually(() => server.requests.length === 1);

    await before.app.close();
    const events = parseSse(await stream.ended());
    expect(events.map((e) => e.event)).toEqual(['run.start', 'run.error']);
    expect(JSON.parse(events[1]!.data).error).toBe('interrupted by shutdown');

    const after = await app({ home, env: ENV, config: slowConfig(server) });
    const stored = (await json(await after.request(`/api/v1/runs/${run.run_id}`))).data;
    expect(stored).toMatchObject({ status: 'error', error: 'interrupted by shutdown' });
    expect((await readEvents(after, run.run_id)).events.map((e) => e.event)).toEqual(['run.start', 'run.error']);
  });

  it('closes the runtime only once every viewer has been handed the terminal event and the end', async () => {
    const server = await fakeServer(10_000);
    const t = await app({ env: ENV, config: slowConfig(server) });
    const run = await startRun(t, { message: 'slow' });
    await eventually(() => server.requests.length === 1);
    // Two thousand viewers take many turns of the event loop to be handed the event and the end.
    const seen: string[][] = Array.from({ length: 2000 }, () => []);
    for (const got of seen) {
      const watch = await t.app.agent.watchRun(run.run_id, 0, { send: (event) => got.push(event.name), end: () => got.push('end') });
      if (!watch.found || watch.finished) throw new Error('the run is not in flight');
      // The log so far comes as the replay; what follows, through the viewer.
      got.unshift(...watch.replay.map((event) => event.name));
    }
    await t.app.agent.close();
    for (const got of seen) expect(got).toEqual(['run.start', 'run.error', 'end']);
  });

  it('refuses new work while closing', async () => {
    const t = await startTestApp();
    await t.app.agent.close();
    await expect(t.app.agent.startChannelRun({ sessionId: 'job:x', message: 'hi', source: 'job', jobId: 'x' })).rejects.toThrow(/shutting down/);
    const refused = await postJson(t, '/api/v1/runs', { message: 'hi' });
    expect(refused.status).toBe(503);
    await t.close();
  });
});
