import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG_MIGRATIONS } from '../src/storage/postgres/migrations/index.js';
import { startTestApp, type TestApp } from './helpers/app.js';

const LATEST = PG_MIGRATIONS.at(-1)!.version;
import { createTestDatabase, databaseRelay, postgresTestUrl, type TestDatabase } from './helpers/postgres.js';

/** The service on PostgreSQL: two replicas on one database, readiness, and the database going away. */
describe.skipIf(postgresTestUrl === null)('agentd on PostgreSQL', () => {
  let database: TestDatabase;
  let relay: Awaited<ReturnType<typeof databaseRelay>>;
  const apps: TestApp[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    relay = await databaseRelay();
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await relay?.stop().catch(() => undefined);
    await database?.drop();
  });

  const replica = async (url: string, apiKey?: string) => {
    const app = await startTestApp({ config: { storage: { backend: 'postgres', postgres_url: url }, ...(apiKey ? { api: { api_key: apiKey } } : {}) } });
    apps.push(app);
    return app;
  };
  const json = async (response: Response) => ({ status: response.status, body: await response.json() as Record<string, any> });

  it('starts two replicas on one database (migrating once) and shows each the sessions and turns the other stored', async () => {
    const [a, b] = await Promise.all([replica(database.url), replica(database.url)]);
    const session = (await json(await a.request('/api/v1/sessions', {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'pg' }),
    }))).body.data;
    const chat = await json(await a.request('/api/v1/chat', {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ session_id: session.id, message: 'remember the word zeppelin' }),
    }));
    expect(chat.status).toBe(200);
    // The session lives in the database: the other replica knows it and can chat on it.
    const onB = await json(await b.request(`/api/v1/sessions/${session.id}`));
    expect(onB.body.data).toMatchObject({ id: session.id, name: 'pg', turn_count: 2 });
    const chatOnB = await b.request('/api/v1/chat', {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ session_id: session.id, message: 'and again' }),
    });
    expect(chatOnB.status).toBe(200);
    expect((await json(await a.request(`/api/v1/sessions/${session.id}`))).body.data.turn_count).toBe(4);
    const search = await json(await b.request('/api/v1/memory/search?q=zeppelin'));
    expect(search.body.data.results.map((r: { content: string }) => r.content)).toContain('remember the word zeppelin');
    // One audit chain across both replicas.
    expect(await b.app.audit.verify()).toMatchObject({ ok: true });
    const diagnostics = await json(await b.request('/api/v1/diagnostics'));
    const memory = diagnostics.body.data.sections.find((s: { key: string }) => s.key === 'memory');
    expect(memory.checks.find((c: { name: string }) => c.name === 'database')).toMatchObject({
      status: 'ok', summary: expect.stringMatching(new RegExp(`^PostgreSQL \\d+\\.\\d+.* at postgres://.*schema version ${LATEST} \\(current\\)$`)),
    });
  });

  it('stores a run\'s turns and costs with its end: the next run on the session, on the other replica, starts at once and sees them', async () => {
    const [a, b] = await Promise.all([replica(database.url), replica(database.url)]);
    const session = (await json(await a.request('/api/v1/sessions', {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({}),
    }))).body.data;
    const run = async (app: TestApp, message: string) => {
      const created = await json(await app.request('/api/v1/runs', {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ session_id: session.id, message }),
      }));
      expect(created.status).toBe(202);
      expect(await (await app.request(`/api/v1/runs/${created.body.data.run_id}/events`)).text()).toContain('event: run.complete');
    };
    await run(a, 'what is 17*23?');
    // Acknowledged by run.complete: the turns, their count and the calls' costs are stored, and the session is free.
    expect((await json(await b.request(`/api/v1/sessions/${session.id}`))).body.data.turn_count).toBe(2);
    await run(b, 'remember the word airship');
    expect((await json(await a.request(`/api/v1/sessions/${session.id}`))).body.data.turn_count).toBe(4);
    const memory = await json(await a.request(`/api/v1/sessions/${session.id}/history`));
    expect(memory.body.data.turns.map((t: { content: string }) => t.content)).toEqual([
      'what is 17*23?', expect.stringContaining('391'), 'remember the word airship', expect.any(String),
    ]);
    const costs = await json(await b.request('/api/v1/costs/summary?limit=100'));
    expect(costs.body.data.sessions.find((s: { session_id: string }) => s.session_id === session.id)).toMatchObject({ calls: 3 });
  });

  it('keeps a console login valid on every replica, and a logout ends it on all of them', async () => {
    const key = `shared-${Date.now()}`;
    const [a, b] = await Promise.all([replica(database.url, key), replica(database.url, key)]);
    const login = await fetch(`${a.url}/login`, {
      method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `api_key=${key}`,
    });
    expect(login.status).toBe(303);
    const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;
    expect((await fetch(`${b.url}/api/v1/status`, { headers: { cookie } })).status).toBe(200);
    const page = await (await fetch(`${b.url}/`, { headers: { cookie } })).text();
    const csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(page)![1]!;
    expect((await fetch(`${b.url}/logout`, { method: 'POST', headers: { cookie, 'x-csrf-token': csrf } })).status).toBe(200);
    expect((await fetch(`${a.url}/api/v1/status`, { headers: { cookie } })).status).toBe(401);
  });

  it('answers readiness without a key, 503 with the envelope while the database is unreachable, and recovers by itself', async () => {
    const app = await replica(relay.url(database.name));
    const ready = () => fetch(`${app.url}/api/v1/ready`).then(json);
    expect(await ready()).toEqual({ status: 200, body: { status: 'ok', data: { status: 'ready' } } });

    await relay.stop();
    expect(await ready()).toEqual({ status: 503, body: { status: 'error', error: 'Not ready: the database is unreachable', code: 'AGENTD_NOT_READY' } });
    const search = await json(await app.request('/api/v1/memory/search?q=zeppelin'));
    expect(search).toMatchObject({ status: 503, body: { status: 'error', code: 'AGENTD_STORAGE_UNAVAILABLE' } });
    const created = await json(await app.request('/api/v1/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }));
    expect(created).toMatchObject({ status: 503, body: { status: 'error', code: 'AGENTD_STORAGE_UNAVAILABLE' } });
    // The diagnostics still answer, with the one thing to fix.
    const report = (await json(await app.request('/api/v1/diagnostics'))).body.data;
    expect(report.overall).toBe('error');
    const memory = report.sections.find((s: { key: string }) => s.key === 'memory');
    expect(memory.checks).toEqual([expect.objectContaining({ name: 'database', status: 'error', summary: expect.stringContaining('is unreachable') })]);
    // Liveness is not readiness: the process is fine, a supervisor must not restart it.
    expect((await app.request('/api/v1/health')).status).toBe(200);

    await relay.start();
    expect(await ready()).toMatchObject({ status: 200 });
    expect((await json(await app.request('/api/v1/memory/search?q=zeppelin'))).status).toBe(200);
    const session = (await json(await app.request('/api/v1/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }))).body.data;
    const chat = await app.request('/api/v1/chat', {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ session_id: session.id, message: 'back again' }),
    });
    expect(chat.status).toBe(200);
  });

  it('refuses to start, naming the server without its password, when the database cannot be reached', async () => {
    await expect(startTestApp({ config: { storage: { backend: 'postgres', postgres_url: 'postgres://agentd:hunter2@127.0.0.1:1/agentd' } } }))
      .rejects.toThrow(/^cannot open the PostgreSQL database postgres:\/\/agentd:\*\*\*@127\.0\.0\.1:1\/agentd \(.*ECONNREFUSED/);
    await expect(startTestApp({ config: { storage: { backend: 'postgres', postgres_url: 'postgres://agentd:hunter2@127.0.0.1:1/agentd' } } }))
      .rejects.not.toThrow(/hunter2/);
  });
});
