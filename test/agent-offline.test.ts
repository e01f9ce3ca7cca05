import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finishedRun, json, postJson, readEvents, startRun } from './helpers/agent.js';
import { sqliteOf, startTestApp, type TestApp } from './helpers/app.js';

/** A fresh app with no key and no network: the offline provider exercises every agent path. */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

function auditRows(eventType: string, taskId?: string): { result: string; action: string; session_id: string; detail: any }[] {
  const rows = sqliteOf(t.app)
    .prepare(`SELECT result, action, session_id, detail FROM audit_events WHERE event_type = ? ${taskId ? 'AND task_id = ?' : ''} ORDER BY seq`)
    .all(...(taskId ? [eventType, taskId] : [eventType])) as { result: string; action: string; session_id: string; detail: string }[];
  return rows.map((row) => ({ ...row, detail: JSON.parse(row.detail) }));
}

describe('providers, tools and status', () => {
  it('lists the providers with offline as the available default', async () => {
    const { data } = await json(await t.request('/api/v1/providers'));
    expect(data.providers).toEqual([
      { name: 'offline', model: 'offline', available: true, is_default: true },
      { name: 'anthropic', model: expect.any(String), available: false, is_default: false },
      { name: 'openai', model: expect.any(String), available: false, is_default: false },
    ]);
  });

  it('lists the four tools with their JSON schemas', async () => {
    const { data } = await json(await t.request('/api/v1/tools'));
    expect(data.tools.map((tool: any) => tool.name)).toEqual(['current_time', 'calculator', 'web_fetch', 'memory_search']);
    for (const tool of data.tools) {
      expect(tool.description.length).toBeGreaterThan(10);
      expect(tool.schema).toMatchObject({ type: 'object', properties: expect.any(Object) });
    }
    expect(data.tools[2].schema.required).toEqual(['url']);
  });

  it('reports providers, tools, sessions and memory in the status', async () => {
    await json(await postJson(t, '/api/v1/sessions', {}));
    const { data } = await json(await t.request('/api/v1/status'));
    expect(data).toMatchObject({
      providers_available: ['offline'],
      default_provider: 'offline',
      tool_count: 4,
      memory: { present: true, turn_count: expect.any(Number) },
    });
    expect(data.session_count).toBe(await t.app.agent.sessions.count());
    expect(data.session_count).toBeGreaterThanOrEqual(1);
  });

  it('documents every agent route in the OpenAPI document', async () => {
    const doc = await json(await t.request('/api/v1/openapi.json'));
    for (const path of ['/api/v1/providers', '/api/v1/tools', '/api/v1/sessions', '/api/v1/sessions/{id}', '/api/v1/sessions/{id}/history',
      '/api/v1/chat', '/api/v1/runs', '/api/v1/runs/{id}', '/api/v1/runs/{id}/cancel', '/api/v1/runs/{id}/events', '/api/v1/costs/summary']) {
      expect(doc.paths[path], path).toBeDefined();
    }
    expect(doc.paths['/api/v1/runs'].post.responses['202']).toBeDefined();
    expect(doc.paths['/api/v1/runs/{id}/events'].get.responses['200'].content['text/event-stream']).toBeDefined();
  });
});

describe('the offline agent', () => {
  it('answers "what time is it in Tokyo?" with the current_time tool', async () => {
    const run = await startRun(t, { message: 'what time is it in Tokyo?' });
    const { events } = await readEvents(t, run.run_id);
    expect(events.map((e) => e.event)).toEqual(['run.start', 'tool.request', 'tool.result', 'run.complete']);
    expect(JSON.parse(events[1]!.data)).toMatchObject({ run_id: run.run_id, tool: 'current_time', arguments: { timezone: 'Asia/Tokyo' } });
    expect(JSON.parse(events[2]!.data)).toMatchObject({ run_id: run.run_id, tool: 'current_time', is_error: false, duration_ms: expect.any(Number) });
    const complete = JSON.parse(events[3]!.data);
    expect(complete.response).toMatch(/Asia\/Tokyo/);
    expect(complete.tools_used).toEqual(['current_time']);
  });

  it('answers "what is 17*23?" with the calculator: 391', async () => {
    const run = await startRun(t, { message: 'what is 17*23?' });
    const { events } = await readEvents(t, run.run_id);
    expect(events.filter((e) => e.event?.startsWith('tool.')).map((e) => JSON.parse(e.data).tool)).toEqual(['calculator', 'calculator']);
    expect(JSON.parse(events.at(-1)!.data).response).toContain('391');

    const chat = await json(await postJson(t, '/api/v1/chat', { message: 'what is 17*23?' }));
    expect(chat.data).toEqual({
      response: expect.stringContaining('391'),
      session_id: expect.stringMatching(/^ses_/),
      usage: { prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number), cost_usd: 0 },
    });
    expect(chat.data.usage.prompt_tokens).toBeGreaterThan(0);
  });

  it('stores the user and assistant turns with their provider, and sends earlier turns as context', async () => {
    const first = await json(await postJson(t, '/api/v1/chat', { message: 'what is 2+2?' }));
    const sessionId = first.data.session_id;
    await postJson(t, '/api/v1/chat', { message: 'what is 3+3?', session_id: sessionId });
    const { data } = await json(await t.request(`/api/v1/sessions/${sessionId}/history`));
    expect(data.turns.map((turn: any) => [turn.role, turn.provider])).toEqual([
      ['user', 'offline'], ['assistant', 'offline'], ['user', 'offline'], ['assistant', 'offline'],
    ]);
    expect(data.turns[0]).toEqual({
      id: expect.any(String), session_id: sessionId, role: 'user', content: 'what is 2+2?', provider: 'offline',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/), pinned: false,
    });
    expect(data.turns[3].content).toContain('6');
    const session = (await json(await t.request(`/api/v1/sessions/${sessionId}`))).data;
    expect(session.turn_count).toBe(4);

    const limited = (await json(await t.request(`/api/v1/sessions/${sessionId}/history?limit=2`))).data;
    expect(limited.turns.map((turn: any) => turn.content)).toEqual(['what is 3+3?', data.turns[3].content]);
  });

  it('passes the reply through the secret censor', async () => {
    // The offline provider echoes the expression it evaluated; a key-shaped token in it must not come back.
    const secret = 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345';
    const chat = await json(await postJson(t, '/api/v1/chat', { message: `search memory for ${secret}` }));
    expect(chat.data.response).not.toContain(secret);
  });

  it('audits each tool call and the completed run', async () => {
    const run = await startRun(t, { message: 'what is 6*7?', session_id: undefined });
    await finishedRun(t, run.run_id);
    const calls = auditRows('agent.tool_call', run.run_id);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ result: 'allow', action: 'calculator', session_id: run.session_id });
    expect(calls[0]!.detail).toMatchObject({ tool: 'calculator', call_id: expect.any(String), is_error: false, duration_ms: expect.any(Number), arguments: { expression: '6*7' } });
    const complete = auditRows('agent.run.complete', run.run_id);
    expect(complete).toHaveLength(1);
    expect(complete[0]!.detail).toMatchObject({
      run_id: run.run_id, resolved_provider: 'offline', tools_used: ['calculator'],
      cost: { prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number), cost_usd: 0 },
    });
  });

  it('feeds a tool error back to the model instead of failing the run', async () => {
    // web_fetch is refused by the default-deny policy; the run still completes and says so.
    const run = await startRun(t, { message: 'fetch https://example.com/page' });
    const { events } = await readEvents(t, run.run_id);
    expect(events.map((e) => e.event)).toEqual(['run.start', 'tool.request', 'tool.result', 'run.complete']);
    expect(JSON.parse(events[2]!.data)).toMatchObject({ tool: 'web_fetch', is_error: true });
    expect(JSON.parse(events[3]!.data).response).toMatch(/network policy/);
    expect(auditRows('agent.tool_call', run.run_id)[0]).toMatchObject({ result: 'error', detail: { is_error: true } });
  });
});

describe('sessions', () => {
  it('creates, lists (most recent first), reads and ends sessions', async () => {
    const created = await postJson(t, '/api/v1/sessions', { name: 'planning' });
    expect(created.status).toBe(201);
    const a = (await json(created)).data;
    expect(a).toEqual({
      id: expect.stringMatching(/^ses_/), name: 'planning', provider: 'offline',
      created_at: expect.any(String), last_used_at: a.created_at, turn_count: 0,
    });
    const b = (await json(await t.request('/api/v1/sessions', { method: 'POST' }))).data;
    expect(b.name).toBeNull();

    let list = (await json(await t.request('/api/v1/sessions?limit=2'))).data.sessions;
    expect(list.map((s: any) => s.id)).toEqual([b.id, a.id]);
    // Using a session makes it the most recent.
    await postJson(t, '/api/v1/chat', { message: 'hello', session_id: a.id });
    list = (await json(await t.request('/api/v1/sessions?limit=2'))).data.sessions;
    expect(list.map((s: any) => s.id)).toEqual([a.id, b.id]);

    expect((await json(await t.request(`/api/v1/sessions/${a.id}`))).data.id).toBe(a.id);
    const ended = await t.request(`/api/v1/sessions/${a.id}`, { method: 'DELETE' });
    expect(ended.status).toBe(200);
    expect((await json(ended)).data).toEqual({ id: a.id, ended: true });
    expect((await t.request(`/api/v1/sessions/${a.id}`)).status).toBe(404);
    expect((await t.request(`/api/v1/sessions/${a.id}`, { method: 'DELETE' })).status).toBe(404);
    expect((await t.request(`/api/v1/sessions/${a.id}/history`)).status).toBe(404);
    // Its turns persist: search still finds them.
    const found = (await json(await t.request(`/api/v1/memory/search?q=hello&session_id=${a.id}`))).data.results;
    expect(found.length).toBeGreaterThan(0);
  });

  it('validates bodies and limits', async () => {
    expect((await postJson(t, '/api/v1/sessions', { provider: 'nope' })).status).toBe(400);
    const unavailable = await postJson(t, '/api/v1/sessions', { provider: 'openai' });
    expect(unavailable.status).toBe(400);
    expect((await json(unavailable)).error).toMatch(/provider 'openai' is not available: set OPENAI_API_KEY/);
    expect((await json(await postJson(t, '/api/v1/sessions', { provider: 'nope' }))).error).toMatch(/unknown provider 'nope'/);
    expect((await postJson(t, '/api/v1/sessions', { name: 5 })).status).toBe(400);
    const typo = await postJson(t, '/api/v1/sessions', { nmae: 'x' });
    expect(typo.status).toBe(400);
    expect((await json(typo)).error).toBe('field "nmae" is not allowed');
    expect((await postJson(t, '/api/v1/sessions', [])).status).toBe(400);
    expect((await t.request('/api/v1/sessions?limit=abc')).status).toBe(400);
    expect((await t.request('/api/v1/sessions?limit=1.5')).status).toBe(400);
    expect((await json(await t.request('/api/v1/sessions?limit=100000'))).data.sessions.length).toBeLessThanOrEqual(200);
    expect((await t.request('/api/v1/sessions/ses_unknown/history?limit=x')).status).toBe(400);
    expect((await t.request('/api/v1/sessions/ses_unknown')).status).toBe(404);
  });
});

describe('chat and run validation', () => {
  it('refuses bad bodies with 400, long messages with 413, unknown sessions with 404', async () => {
    for (const path of ['/api/v1/chat', '/api/v1/runs']) {
      expect((await postJson(t, path, {})).status, path).toBe(400);
      expect((await json(await postJson(t, path, {}))).error).toMatch(/message/);
      expect((await postJson(t, path, { message: 42 })).status).toBe(400);
      expect((await postJson(t, path, { message: '' })).status).toBe(400);
      expect((await postJson(t, path, { message: 'hi', sesion_id: 'x' })).status).toBe(400);
      expect((await t.request(path, { method: 'POST' })).status).toBe(400);
      const long = await postJson(t, path, { message: 'x'.repeat(32_001) });
      expect(long.status).toBe(413);
      expect((await json(long)).error).toMatch(/32000/);
      // 32,000 characters exactly is fine (and counts characters, not UTF-16 units).
      expect((await postJson(t, path, { message: '😀'.repeat(32_000), session_id: 'ses_missing' })).status).toBe(404);
      const unknown = await postJson(t, path, { message: 'hi', session_id: 'ses_missing' });
      expect(unknown.status).toBe(404);
      const badProvider = await postJson(t, path, { message: 'hi', provider: 'nope' });
      expect(badProvider.status).toBe(400);
      expect((await json(badProvider)).error).toMatch(/unknown provider 'nope': known providers are offline, anthropic, openai/);
    }
  });

  it('applies a provider override to that request only', async () => {
    const session = (await json(await postJson(t, '/api/v1/sessions', {}))).data;
    const run = await startRun(t, { message: 'what is 1+1?', session_id: session.id, provider: 'offline' });
    expect(run).toMatchObject({ provider: 'offline', resolved_provider: 'offline' });
    expect((await postJson(t, '/api/v1/chat', { message: 'hi', session_id: session.id, provider: 'openai' })).status).toBe(400);
    const providers = (await json(await t.request('/api/v1/providers'))).data.providers;
    expect(providers.find((p: any) => p.is_default).name).toBe('offline');
    expect((await json(await t.request(`/api/v1/sessions/${session.id}`))).data.provider).toBe('offline');
  });
});
