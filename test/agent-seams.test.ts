import { describe, expect, it } from 'vitest';
import type { FakeLlmServer } from './fakes/fake-llm-server.js';
import { sqliteOf, type TestApp, type TestAppOptions } from './helpers/app.js';
import { perTest } from './helpers/per-test.js';
import { eventually, heldTool, json, postJson, readEvents, startAppWithFakeOpenAI, startRun } from './helpers/agent.js';

/**
 * The seams between the agent and its store: nothing is acknowledged or streamed that did not
 * commit, and a session is free only once its run's loop has unwound.
 */

const { app, home, later } = perTest();

async function appWithFake(options: TestAppOptions = {}): Promise<{ t: TestApp; server: FakeLlmServer }> {
  const started = await startAppWithFakeOpenAI(options);
  later(started.close);
  return started;
}

async function newSession(t: TestApp): Promise<string> {
  return (await json(await postJson(t, '/api/v1/sessions', {}))).data.id;
}

describe('run lifecycle', () => {
  it('keeps a cancelled run\'s session busy until its loop has unwound, so its turns precede the next run\'s', async () => {
    const { t, server } = await appWithFake();
    const stubborn = heldTool();
    t.app.tools.register(stubborn.tool);
    server.enqueue({ toolCalls: [{ name: 'stubborn', arguments: {} }] }, { text: 'second answer' });
    const session = await newSession(t);
    const first = await startRun(t, { session_id: session, message: 'first question' });
    await stubborn.started;

    const cancelled = await t.request(`/api/v1/runs/${first.run_id}/cancel`, { method: 'POST' });
    expect(cancelled.status).toBe(202);
    expect((await json(cancelled)).data.status).toBe('cancelled');
    // The tool is still running: the session is not free yet.
    const refused = await postJson(t, '/api/v1/runs', { session_id: session, message: 'second question' });
    expect(refused.status).toBe(409);
    expect((await json(refused)).error).toMatch(/already in flight/);

    stubborn.release();
    const second = await eventually(async () => {
      const res = await postJson(t, '/api/v1/runs', { session_id: session, message: 'second question' });
      return res.status === 202 ? (await json(res)).data : undefined;
    });
    await readEvents(t, second.run_id);
    const history = (await json(await t.request(`/api/v1/sessions/${session}/history`))).data.turns as { content: string }[];
    expect(history.map((turn) => turn.content)).toEqual(['first question', 'second question', 'second answer']);
  });

  it('reports a loop that outlives the shutdown bound and refuses its late writes without crashing', async () => {
    const stubborn = heldTool();
    const dir = home('agentd-seams-');
    const { t, server } = await appWithFake({ shutdownGraceMs: 200, home: dir });
    t.app.tools.register(stubborn.tool);
    server.enqueue({ toolCalls: [{ name: 'stubborn', arguments: {} }] });
    const run = await startRun(t, { message: 'never ends' });
    await stubborn.started;
    const failures: unknown[] = [];
    const onFailure = (error: unknown) => failures.push(error);
    process.on('unhandledRejection', onFailure);
    try {
      const started = Date.now();
      await t.close();
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(t.log.lines.some((line) => line.includes('1 agent loop(s) did not stop within the grace period') && line.includes(run.run_id))).toBe(true);
      // The loop wakes up after the database closed: its turn write is refused and logged.
      stubborn.release();
      await eventually(() => t.log.lines.some((line) => line.includes('could not store the turns')));
      expect(failures).toEqual([]);
    } finally {
      process.off('unhandledRejection', onFailure);
    }
    const again = await app({ home: dir });
    const stored = (await json(await again.request(`/api/v1/runs/${run.run_id}`))).data;
    expect(stored).toMatchObject({ status: 'error', error: 'interrupted by shutdown' });
  });
});

describe('commit truth', () => {
  it('answers a chat 500 when its turns cannot be committed, and 200 again once they can', async () => {
    const t = await app();
    sqliteOf(t.app).exec(`CREATE TRIGGER refuse_turns BEFORE INSERT ON turns BEGIN SELECT RAISE(ABORT, 'disk is full'); END`);
    const refused = await postJson(t, '/api/v1/chat', { message: 'what is 2+2?' });
    expect(refused.status).toBe(500);
    const body = await json(refused);
    expect(body.status).toBe('error');
    expect(body.error).not.toContain('disk is full');
    expect(t.log.lines.some((line) => line.includes('could not store the turns') && line.includes('disk is full'))).toBe(true);

    sqliteOf(t.app).exec('DROP TRIGGER refuse_turns');
    const answered = await postJson(t, '/api/v1/chat', { message: 'what is 2+2?' });
    expect(answered.status).toBe(200);
    const session = (await json(answered)).data.session_id;
    const history = (await json(await t.request(`/api/v1/sessions/${session}/history`))).data.turns;
    expect(history).toHaveLength(2);
  });

  it('never streams an event the store lacks: a failed event write ends the run with run.error', async () => {
    const t = await app();
    sqliteOf(t.app).exec(`CREATE TRIGGER refuse_tool_events BEFORE INSERT ON run_events WHEN new.name = 'tool.request'
      BEGIN SELECT RAISE(ABORT, 'disk is full'); END`);
    const run = await startRun(t, { message: 'what is 17*23?' });
    const live = await readEvents(t, run.run_id);
    const names = live.events.map((event) => event.event);
    expect(names[0]).toBe('run.start');
    expect(names.at(-1)).toBe('run.error');
    expect(names).not.toContain('tool.request');
    const terminal = JSON.parse(live.events.at(-1)!.data) as { error: string };
    expect(terminal.error).toBe('the run could not be stored; see the service log');

    // Every streamed event is in the stored log, byte for byte.
    const stored = sqliteOf(t.app).prepare('SELECT id, name, data FROM run_events WHERE run_id = ? ORDER BY id').all(run.run_id) as { id: number; name: string; data: string }[];
    const byId = new Map(stored.map((row) => [String(row.id), row]));
    for (const event of live.events) expect(byId.get(event.id!)).toEqual({ id: Number(event.id), name: event.event, data: event.data });
    expect((await json(await t.request(`/api/v1/runs/${run.run_id}`))).data.status).toBe('error');
  });

  it('stops a run whose end another process stored (RunClosedError) and hands its viewers that end, with nothing appended after it', async () => {
    const { t, server } = await appWithFake();
    const stubborn = heldTool();
    t.app.tools.register(stubborn.tool);
    server.enqueue({ toolCalls: [{ name: 'stubborn', arguments: {} }] }, { text: 'an answer never given' });
    const run = await startRun(t, { message: 'a run ended elsewhere' });
    await stubborn.started;
    await eventually(async () => (await t.app.storage.runs.events(run.run_id, 0)).some((event) => event.name === 'tool.request'));
    const viewed = readEvents(t, run.run_id);

    // What another replica does when this one's claim lapsed: the run's end is stored under it.
    expect(await t.app.storage.runs.recoverInterrupted(new Date().toISOString(), 'interrupted: ended elsewhere')).toEqual([run.run_id]);
    stubborn.release();

    const events = (await viewed).events;
    expect(events.map((event) => event.event)).toEqual(['run.start', 'tool.request', 'run.error']);
    expect(JSON.parse(events.at(-1)!.data)).toMatchObject({ error: 'interrupted: ended elsewhere' });
    expect((await t.app.storage.runs.events(run.run_id, 0)).map((event) => event.name)).toEqual(['run.start', 'tool.request', 'run.error']);
    expect(await t.app.agent.whenRunFinished(run.run_id)).toMatchObject({ status: 'error', error: 'interrupted: ended elsewhere' });
    expect(t.log.lines.some((line) => line.includes(`run ${run.run_id} was ended by another replica`))).toBe(true);
  });
});

describe('what is stored of what a user writes', () => {
  it('stores a pasted key censored in turns, search previews and run events', async () => {
    const t = await app();
    const key = 'sk-ant-api03-PASTEDKEYzzzzzzzzzzzzzzzzzzzzzzzz';
    const run = await startRun(t, { message: `please remember ${key} for later, what is 6*7?` });
    // The run's message is kept from the 202 on (an interrupted run still shows what it was asked), censored.
    expect(run.message).toBe('please remember [REDACTED] for later, what is 6*7?');
    const { events } = await readEvents(t, run.run_id);
    const turns = (await json(await t.request(`/api/v1/sessions/${run.session_id}/history`))).data.turns as { role: string; content: string }[];
    expect(turns[0]!.content).toBe('please remember [REDACTED] for later, what is 6*7?');
    const results = (await json(await t.request('/api/v1/memory/search?q=remember%20later'))).data.results as { preview: string }[];
    expect(results.map((r) => r.preview).join(' ')).not.toContain('PASTEDKEY');
    expect(results).toHaveLength(1);
    expect(JSON.stringify(events)).not.toContain('PASTEDKEY');
    expect(JSON.stringify((await json(await t.request(`/api/v1/runs/${run.run_id}`))).data)).not.toContain('PASTEDKEY');
  });

  it('redacts query values and credentials of URLs in tool.request events and agent.tool_call audit events', async () => {
    const t = await app();
    const run = await startRun(t, { message: 'fetch https://user:hunter2@example.invalid/report?api_key=qqsecretvalue&page=2' });
    const { events } = await readEvents(t, run.run_id);
    const request = events.find((event) => event.event === 'tool.request');
    expect(JSON.parse(request!.data).arguments).toEqual({ url: 'https://example.invalid/report?api_key=[REDACTED]&page=[REDACTED]' });
    const audited = sqliteOf(t.app).prepare("SELECT detail FROM audit_events WHERE event_type = 'agent.tool_call' AND task_id = ?").get(run.run_id) as { detail: string };
    expect(JSON.parse(audited.detail).arguments).toEqual({ url: 'https://example.invalid/report?api_key=[REDACTED]&page=[REDACTED]' });
    const everything = JSON.stringify(sqliteOf(t.app).prepare('SELECT * FROM audit_events').all()) + JSON.stringify(events);
    expect(everything).not.toContain('qqsecretvalue');
    expect(everything).not.toContain('hunter2');
  });
});
