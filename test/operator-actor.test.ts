import { afterEach, describe, expect, it } from 'vitest';
import type { SqliteStorage } from '../src/storage/sqlite/index.js';
import { json } from './helpers/agent.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { storedEvents } from './helpers/audit.js';

/**
 * Every operator action is audited with who acted, as approvals record who decided: `api_key`, or
 * `web_session:<id>` for the console's session cookie.
 */
const apps: TestApp[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

type Send = (path: string, method: string, body?: unknown) => Promise<Response>;

/** Requests with the API key. */
function withKey(t: TestApp): { send: Send; actor: string } {
  const send: Send = (path, method, body) => t.request(path, {
    method, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return { send, actor: 'api_key' };
}

/** Requests with the console's session cookie and its CSRF token, as the console's script sends them. */
async function withCookie(t: TestApp): Promise<{ send: Send; actor: string }> {
  const login = await fetch(`${t.url}/login`, {
    method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `api_key=${t.apiKey}`,
  });
  const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;
  const page = await (await fetch(`${t.url}/`, { headers: { cookie } })).text();
  const csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(page)![1]!;
  const sessionId = events(t, 'web.login').at(-1)!.detail.web_session as string;
  expect(sessionId).toMatch(/\S/);
  const send: Send = (path, method, body) => fetch(`${t.url}${path}`, {
    method,
    headers: { cookie, 'x-csrf-token': csrf, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { send, actor: `web_session:${sessionId}` };
}

const events = (t: TestApp, type: string) => storedEvents(t.app.storage as SqliteStorage, type);

describe.each([
  ['the API key', (t: TestApp) => Promise.resolve(withKey(t))],
  ['the console session cookie', withCookie],
] as const)('operator actions authenticated by %s', (_name, as) => {
  it('record who acted on every control, job change, session end and memory pin or delete', async () => {
    const t = await startTestApp({ env: { OPENAI_API_KEY: 'sk-test-openai-key-000000000000' } });
    apps.push(t);
    const { send, actor } = await as(t);

    const job = (await json(await send('/api/v1/scheduler/jobs', 'POST', { name: 'tick', schedule: 'every 1 minutes', task: 'what time is it?' }))).data;
    expect(events(t, 'scheduler.job.create').map((e) => e.actor)).toEqual([actor]);

    const controls: [string, string, string][] = [
      ['scheduler.pause_job', job.id, `pause-job:${job.id}`],
      ['scheduler.resume_job', job.id, `resume-job:${job.id}`],
      ['provider.set_default', 'openai', 'set-default:openai'],
      // Refused (wrong confirm): audited as deny, with the actor too.
      ['scheduler.pause_job', job.id, 'pause-job:wrong'],
    ];
    for (const [id, target, confirm] of controls) await send(`/api/v1/controls/${id}`, 'POST', { target, confirm });
    expect((await send(`/api/v1/scheduler/jobs/${job.id}?confirm=remove-job:${job.id}`, 'DELETE')).status).toBe(200);
    expect(events(t, 'web.control').map((e) => [e.action, e.result, e.actor])).toEqual([
      ['scheduler.pause_job', 'allow', actor],
      ['scheduler.resume_job', 'allow', actor],
      ['provider.set_default', 'allow', actor],
      ['scheduler.pause_job', 'deny', actor],
      ['scheduler.remove_job', 'allow', actor],
    ]);

    const session = (await json(await send('/api/v1/sessions', 'POST', { provider: 'offline' }))).data;
    expect((await send('/api/v1/chat', 'POST', { session_id: session.id, message: 'remember the word zeppelin' })).status).toBe(200);
    const turns = (await json(await send(`/api/v1/sessions/${session.id}/history`, 'GET'))).data.turns;
    expect((await send(`/api/v1/memory/turns/${turns[0].id}/pin`, 'POST', { pinned: true })).status).toBe(200);
    expect((await send(`/api/v1/memory/turns/${turns[0].id}/pin`, 'POST', { pinned: false })).status).toBe(200);
    expect((await send(`/api/v1/memory/turns/${turns[1].id}`, 'DELETE')).status).toBe(200);
    expect(events(t, 'web.memory').map((e) => [e.action, e.actor])).toEqual([['pin', actor], ['unpin', actor], ['delete', actor]]);

    expect((await send(`/api/v1/sessions/${session.id}`, 'DELETE')).status).toBe(200);
    expect(events(t, 'web.session').map((e) => [e.action, e.actor, e.session_id])).toEqual([['delete', actor, session.id]]);
  });
});
