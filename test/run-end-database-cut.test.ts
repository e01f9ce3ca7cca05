import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresStorage } from '../src/storage/postgres/index.js';
import type { FakeLlmServer } from './fakes/fake-llm-server.js';
import { startFakeOpenAI } from './fakes/openai-server.js';
import { eventually, json, postJson, startRun } from './helpers/agent.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { createTestDatabase, databaseRelay, postgresTestUrl, type TestDatabase } from './helpers/postgres.js';

const ENV = { OPENAI_API_KEY: 'sk-test-openai-0123456789abcdefghij' };

/**
 * A replica whose connection to PostgreSQL is cut while a run or chat is in flight, then comes
 * back: the run's end is stored once the database is back (its one terminal event, with the
 * turns and costs that wait for it), and a chat
 * that failed with 503 leaves its session free for the next chat, not busy for a lease.
 */
describe.skipIf(postgresTestUrl === null)('runs and chats whose database connection is cut while they run', () => {
  let database: TestDatabase;
  let relay: Awaited<ReturnType<typeof databaseRelay>>;
  let server: FakeLlmServer;
  let direct: PostgresStorage;
  let app: TestApp;

  beforeAll(async () => {
    database = await createTestDatabase();
    relay = await databaseRelay();
    server = await startFakeOpenAI({ delayMs: 800 });
    app = await startTestApp({
      env: ENV,
      config: {
        storage: { backend: 'postgres', postgres_url: relay.url(database.name) },
        providers: { default: 'openai', openai: { api_key_env: 'OPENAI_API_KEY', model: 'gpt-4.1-mini', base_url: server.baseUrl } },
        network: { allowed_hosts: [server.host] },
      },
    });
    direct = new PostgresStorage(database.url, { replicaId: 'rep_check', poolSize: 2 });
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await direct?.close();
    await relay?.stop();
    await server?.close();
    await database?.drop();
  }, 60_000);

  it('stores the end of a run that could not be stored while the database was unreachable, with its answer, turns and cost, once it is back', async () => {
    const calls = server.requests.length;
    const run = await startRun(app, { message: 'a question answered while the database is away' });
    await eventually(() => server.requests.length > calls);
    await eventually(async () => (await direct.runs.get(run.run_id))?.status === 'running');
    await relay.stop();
    await eventually(() => app.log.lines.some((line) => line.includes(`could not store the end of run ${run.run_id}`)), 10_000);
    expect((await direct.runs.get(run.run_id))?.status).toBe('running');
    await relay.start();

    const stored = await eventually(async () => {
      const record = await direct.runs.get(run.run_id);
      return record?.finished_at ? record : undefined;
    }, 10_000);
    // Its answer, turns and call cost wait for its end, which commits them together once the
    // database is back: nothing the provider answered is lost, and its end is its one terminal event.
    expect(stored).toMatchObject({ status: 'complete', error: null });
    const events = await direct.runs.events(run.run_id, 0);
    expect(events.map((event) => event.name)).toEqual(['run.start', 'run.complete']);
    const turns = await direct.database.query('SELECT role FROM turns WHERE run_id = $1 ORDER BY role', [run.run_id]);
    expect(turns.rows.map((row) => row.role)).toEqual(['assistant', 'user']);
    const costs = await direct.database.query('SELECT model FROM costs WHERE run_id = $1', [run.run_id]);
    expect(costs.rows).toEqual([{ model: 'gpt-4.1-mini' }]);
    // Its session is free again: no claim is left behind.
    const { rows } = await direct.database.query('SELECT holder_id FROM session_claims WHERE session_id = $1', [run.session_id]);
    expect(rows).toEqual([]);
  }, 60_000);

  it('frees the session of a chat that failed because the database was unreachable, so the next chat is not refused as busy', async () => {
    const session = (await json(await postJson(app, '/api/v1/sessions', {}))).data;
    const calls = server.requests.length;
    const chat = postJson(app, '/api/v1/chat', { message: 'a chat the database leaves', session_id: session.id });
    await eventually(() => server.requests.length > calls);
    await relay.stop();
    const failed = await chat;
    expect(failed.status).toBe(503);
    expect(await json(failed)).toMatchObject({ code: 'AGENTD_STORAGE_UNAVAILABLE' });
    await relay.start();

    // The claim the chat held is deleted once the database answers (well within the 20 s lease).
    await eventually(async () => {
      const { rows } = await direct.database.query('SELECT 1 FROM session_claims WHERE session_id = $1', [session.id]);
      return rows.length === 0;
    }, 5_000);
    const next = await postJson(app, '/api/v1/chat', { message: 'the next chat', session_id: session.id });
    expect(next.status).toBe(200);
  }, 60_000);
});
