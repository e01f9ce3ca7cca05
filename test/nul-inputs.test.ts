import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finishedRun, json, postJson, readEvents, startAppWithFakeOpenAI, startRun } from './helpers/agent.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { createTestDatabase, postgresTestUrl, type TestDatabase } from './helpers/postgres.js';

/**
 * NUL (U+0000) in any string the API or the webhook accepts is a 400 AGENTD_VALIDATION naming the
 * field, on both backends alike (PostgreSQL text cannot hold it; before the rule it answered 500
 * there). Over real HTTP, against SQLite and a real PostgreSQL.
 */
const SECRET = 'nul-webhook-secret-0123456789abcdef';
const NUL = '\u0000';
const backends: [string, boolean][] = [['SQLite', false], ...(postgresTestUrl === null ? [] : [['PostgreSQL', true] as [string, boolean]])];

describe.each(backends)('NUL in inputs on %s', (_name, onPostgres) => {
  let t: TestApp;
  let database: TestDatabase | undefined;
  let session: { id: string };
  let job: { id: string };
  beforeAll(async () => {
    database = onPostgres ? await createTestDatabase() : undefined;
    t = await startTestApp({
      config: {
        ...(database ? { storage: { backend: 'postgres', postgres_url: database.url } } : {}),
        webhook: { enabled: true, port: 0, secret: SECRET },
      },
    });
    session = (await json(await postJson(t, '/api/v1/sessions', {}))).data;
    job = (await json(await postJson(t, '/api/v1/scheduler/jobs', { name: 'tick', schedule: 'every 1 minutes', task: 'hello' }))).data;
  });
  afterAll(async () => {
    await t?.close();
    await database?.drop();
  });

  const post = (path: string, body: unknown, method = 'POST') =>
    t.request(path, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  /** [what, the request, the field the message must name] */
  const cases: [string, () => Promise<Response>, string][] = [
    ['audit q', () => t.request('/api/v1/audit?q=a%00b'), 'query parameter "q"'],
    ['audit actor', () => t.request('/api/v1/audit?actor=%00'), 'query parameter "actor"'],
    ['audit session_id', () => t.request('/api/v1/audit?session_id=s%00'), 'query parameter "session_id"'],
    ['audit event_type', () => t.request('/api/v1/audit?event_type=web.%00'), 'query parameter "event_type"'],
    ['memory search q', () => t.request('/api/v1/memory/search?q=zep%00pelin'), 'query parameter "q"'],
    ['memory search session_id', () => t.request('/api/v1/memory/search?q=x&session_id=%00'), 'query parameter "session_id"'],
    ['runs session_id', () => t.request('/api/v1/runs?session_id=a%00'), 'query parameter "session_id"'],
    ['session id', () => t.request('/api/v1/sessions/sess%00x'), 'path parameter "id"'],
    ['session history', () => t.request('/api/v1/sessions/sess%00x/history'), 'path parameter "id"'],
    ['session delete', () => t.request('/api/v1/sessions/sess%00x', { method: 'DELETE' }), 'path parameter "id"'],
    ['run id', () => t.request('/api/v1/runs/run%00x'), 'path parameter "id"'],
    ['run events', () => t.request('/api/v1/runs/run%00x/events'), 'path parameter "id"'],
    ['run cancel', () => t.request('/api/v1/runs/run%00x/cancel', { method: 'POST' }), 'path parameter "id"'],
    ['approval id', () => t.request('/api/v1/approvals/apr%00x'), 'path parameter "id"'],
    ['approval decision', () => post('/api/v1/approvals/apr%00x', { decision: 'deny', confirm: 'deny:x' }), 'path parameter "id"'],
    ['turn pin', () => t.request('/api/v1/memory/turns/turn%00x/pin', { method: 'POST' }), 'path parameter "id"'],
    ['turn delete', () => t.request('/api/v1/memory/turns/turn%00x', { method: 'DELETE' }), 'path parameter "id"'],
    ['job delete', () => t.request(`/api/v1/scheduler/jobs/${job.id}%00`, { method: 'DELETE' }), 'path parameter "id"'],
    ['job delete confirm', () => t.request(`/api/v1/scheduler/jobs/${job.id}?confirm=remove-job:%00`, { method: 'DELETE' }), 'query parameter "confirm"'],
    ['control target', () => post('/api/v1/controls/scheduler.pause_job', { target: `${job.id}${NUL}`, confirm: 'x' }), 'field "target"'],
    ['control id', () => post('/api/v1/controls/scheduler.pause%00', { target: job.id }), 'path parameter "id"'],
    ['chat message', () => post('/api/v1/chat', { session_id: session.id, message: `hi${NUL}` }), 'field "message"'],
    ['chat session_id', () => post('/api/v1/chat', { session_id: `${session.id}${NUL}`, message: 'hi' }), 'field "session_id"'],
    ['run message', () => post('/api/v1/runs', { message: `${NUL}` }), 'field "message"'],
    ['session name', () => post('/api/v1/sessions', { name: `a${NUL}` }), 'field "name"'],
    ['job name', () => post('/api/v1/scheduler/jobs', { name: `a${NUL}`, schedule: 'every 1 minutes', task: 'x' }), 'field "name"'],
    ['job task', () => post('/api/v1/scheduler/jobs', { name: 'a', schedule: 'every 1 minutes', task: `x${NUL}` }), 'field "task"'],
    ['job description', () => post('/api/v1/scheduler/jobs', { name: 'a', schedule: 'every 1 minutes', task: 'x', description: NUL }), 'field "description"'],
    ['job timezone', () => post('/api/v1/scheduler/jobs', { name: 'a', schedule: 'every 1 minutes', task: 'x', timezone: `UTC${NUL}` }), 'field "timezone"'],
    ['a key of the body', () => post('/api/v1/sessions', { [`na${NUL}me`]: 'x' }), 'field "na\\0me"'],
    ['nested deep in the body', () => post('/api/v1/sessions', { name: 'x', deep: JSON.parse(`${'['.repeat(2000)}"${'\\u0000'}"${']'.repeat(2000)}`) }), 'field "deep['],
  ];

  it.each(cases)('refuses NUL in %s with 400 AGENTD_VALIDATION naming the field', async (_what, send, field) => {
    const response = await send();
    const body = await response.json() as { status: string; code: string; error: string };
    expect({ status: response.status, envelope: body.status, code: body.code }).toEqual({ status: 400, envelope: 'error', code: 'AGENTD_VALIDATION' });
    expect(body.error).toContain(field);
    expect(body.error).toContain('must not contain the NUL character (U+0000)');
  });

  it('refuses NUL in the login form and the webhook prompt the same way, and nothing answered 500', async () => {
    const login = await fetch(`${t.url}/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'api_key=a%00b' });
    expect(login.status).toBe(400);
    expect(await login.json()).toMatchObject({ code: 'AGENTD_VALIDATION', error: expect.stringContaining('field "api_key" must not contain the NUL') });
    const payload = JSON.stringify({ prompt: `run this${NUL}`, sender: 'bot' });
    const signature = `sha256=${createHmac('sha256', SECRET).update(payload).digest('hex')}`;
    const hook = await fetch(`http://127.0.0.1:${t.app.webhook!.channel.port}/`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-service-signature': signature }, body: payload,
    });
    expect(hook.status).toBe(400);
    expect(await hook.json()).toMatchObject({ code: 'AGENTD_VALIDATION', error: 'field "prompt" must not contain the NUL character (U+0000)' });
    // A literal backslash-u0000 in text is six characters, not NUL: accepted.
    expect((await post('/api/v1/sessions', { name: 'say \\u0000' })).status).toBe(201);
    expect(t.log.lines.filter((line) => line.includes('unhandled error'))).toEqual([]);
  });
});

/**
 * NUL the service did not accept from a client — a model's answer, a tool's result (a web page can
 * hold one) — is stored with U+FFFD in its place, on both backends alike: the run completes and is
 * kept instead of failing on PostgreSQL.
 */
describe.each(backends)('NUL in what the agent produces on %s', (_name, onPostgres) => {
  let database: TestDatabase | undefined;
  let close: (() => Promise<void>) | undefined;
  afterAll(async () => {
    await close?.();
    await database?.drop();
  });

  it('stores a model answer and a tool result holding NUL with U+FFFD instead, and the run completes', async () => {
    database = onPostgres ? await createTestDatabase() : undefined;
    const started = await startAppWithFakeOpenAI({ config: database ? { storage: { backend: 'postgres', postgres_url: database.url } } : {} });
    close = started.close;
    const { t, server } = started;
    t.app.tools.register({
      name: 'page', description: 'a page with a NUL in it', schema: { type: 'object', properties: {} },
      run: async () => `before${NUL}after`,
    });
    server.enqueue({ toolCalls: [{ name: 'page', arguments: {} }] }, { text: `the page says x${NUL}y` });
    const run = await startRun(t, { message: 'read the page' });
    const finished = await finishedRun(t, run.run_id);
    expect({ status: finished.status, response: finished.response }).toEqual({ status: 'complete', response: 'the page says x\uFFFDy' });
    // The tool's result went to the model as it was (JSON carries NUL escaped); the run went on.
    const { events } = await readEvents(t, run.run_id);
    expect(events.map((event) => event.event)).toEqual(['run.start', 'tool.request', 'tool.result', 'run.complete']);
    expect(server.requests.at(-1)!.raw).toContain('before\\u0000after');
    const history = (await json(await t.request(`/api/v1/sessions/${run.session_id}/history`))).data.turns as { role: string; content: string }[];
    expect(history.map((turn) => turn.content)).toContain('the page says x\uFFFDy');
    expect(history.some((turn) => turn.content.includes(NUL))).toBe(false);

    server.enqueue({ text: `chat ${NUL}answer` });
    const chat = await postJson(t, '/api/v1/chat', { session_id: run.session_id, message: 'again' });
    expect(chat.status).toBe(200);
    expect((await json(chat)).data.response).toBe('chat \uFFFDanswer');
    expect(t.log.lines.filter((line) => line.includes('unhandled error'))).toEqual([]);
  });
});
