import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_CUT_OFF, REPLICA_STOPPED } from '../src/runs/session-leases.js';
import type { PostgresStorage } from '../src/storage/postgres/index.js';
import type { FakeLlmServer } from './fakes/fake-llm-server.js';
import { startFakeOpenAI } from './fakes/openai-server.js';
import { eventually, json, postJson, readEvents, startRun } from './helpers/agent.js';
import { startTestApp, type TestApp, type TestAppOptions } from './helpers/app.js';
import { createTestDatabase, databaseRelay, postgresTestUrl, type TestDatabase } from './helpers/postgres.js';
import { redisRelay, testRedisUrl, uniquePrefix } from './helpers/redis.js';
import { spawnReplicaChild } from './helpers/replica-child.js';
import { postStatus } from './helpers/webhook.js';

const ENV = { OPENAI_API_KEY: 'sk-test-openai-0123456789abcdefghij' };

/**
 * One run or chat in flight per session across replicas, and the runs of a replica that stopped:
 * two services on one PostgreSQL database and one Redis, as two `agentd serve` behind a balancer.
 */
describe.skipIf(postgresTestUrl === null || testRedisUrl === undefined)('session claims shared by replicas', () => {
  let database: TestDatabase;
  let server: FakeLlmServer;
  const apps: TestApp[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    // Every provider call waits this long: a run stays in flight until it is cancelled.
    server = await startFakeOpenAI({ delayMs: 20_000 });
  });
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });
  afterAll(async () => {
    await server?.close();
    await database?.drop();
  });

  const config = () => ({
    storage: { backend: 'postgres' as const, postgres_url: database.url, redis_url: testRedisUrl },
    providers: { default: 'openai', openai: { api_key_env: 'OPENAI_API_KEY', model: 'gpt-4.1-mini', base_url: server.baseUrl } },
    network: { allowed_hosts: [server.host] },
  });
  /** The Redis keys of the replicas of the test running now (a spawned replica shares them). */
  let redisKeyPrefix = uniquePrefix();
  const replicas = async (options: TestAppOptions = {}, extra: Record<string, unknown> = {}): Promise<[TestApp, TestApp]> => {
    redisKeyPrefix = uniquePrefix();
    const started = await Promise.all([0, 1].map(() => startTestApp({ env: ENV, redisKeyPrefix, ...options, config: { ...config(), ...extra } })));
    apps.push(...started);
    return started as [TestApp, TestApp];
  };
  const waitingCalls = async (count: number) => eventually(() => server.requests.length >= count);

  it('refuses a run or a chat with 409 on every replica while another one runs the session\'s run or chat, and frees it when that ends', async () => {
    const [a, b] = await replicas();
    const calls = server.requests.length;
    const run = await startRun(a, { message: 'a slow question' });
    await waitingCalls(calls + 1);

    const refusedRun = await postJson(b, '/api/v1/runs', { message: 'another', session_id: run.session_id, provider: 'offline' });
    expect(refusedRun.status).toBe(409);
    expect(await json(refusedRun)).toMatchObject({ code: 'AGENTD_RUN_BUSY', error: expect.stringMatching(/already in flight/) });
    const refusedChat = await postJson(b, '/api/v1/chat', { message: 'a chat', session_id: run.session_id, provider: 'offline' });
    expect(refusedChat.status).toBe(409);
    expect(await json(refusedChat)).toMatchObject({ code: 'AGENTD_RUN_BUSY' });
    // Other sessions are not affected.
    expect((await postJson(b, '/api/v1/runs', { message: 'elsewhere', provider: 'offline' })).status).toBe(202);

    // Cancelled from B (it executes on A): the session is free for B's next run at once.
    expect((await b.request(`/api/v1/runs/${run.run_id}/cancel`, { method: 'POST' })).status).toBe(202);
    await eventually(async () => (await a.app.agent.getRun(run.run_id))?.status === 'cancelled' && !a.app.agent.isBusy(run.session_id));
    expect((await postJson(b, '/api/v1/runs', { message: 'now', session_id: run.session_id, provider: 'offline' })).status).toBe(202);

    // A chat on B holds the session for A too.
    const session = (await json(await postJson(b, '/api/v1/sessions', {}))).data;
    const chat = postJson(b, '/api/v1/chat', { message: 'a slow chat', session_id: session.id });
    await waitingCalls(calls + 2);
    expect((await postJson(a, '/api/v1/runs', { message: 'run', session_id: session.id, provider: 'offline' })).status).toBe(409);
    // Ending its session on A (the other replica) cancels it on B through the cancel signal.
    expect((await a.request(`/api/v1/sessions/${session.id}`, { method: 'DELETE' })).status).toBe(200);
    expect(await json(await chat)).toMatchObject({ code: 'AGENTD_RUN_CANCELLED', error: 'the chat was cancelled: its session was ended' });
    await eventually(() => !b.app.agent.isBusy(session.id));

    // Ending a session on B cancels its run executing on A.
    const doomed = await startRun(a, { message: 'a run whose session ends' });
    await waitingCalls(calls + 3);
    expect((await b.request(`/api/v1/sessions/${doomed.session_id}`, { method: 'DELETE' })).status).toBe(200);
    await eventually(async () => (await a.app.agent.getRun(doomed.run_id))?.status === 'cancelled');
  });

  it('ends a run whose replica, alive, stopped renewing its claim within a lease, once, as cut off from the database, and frees its session on the other replica', async () => {
    const leases = { sessionLeaseMs: 1_500, heartbeatMs: 250 };
    const [a, b] = await replicas(leases);
    const calls = server.requests.length;
    const run = await startRun(a, { message: 'a question for a replica about to stop' });
    await waitingCalls(calls + 1);
    // A viewer on B follows the run A executes, and one on A.
    const viewed = readEvents(b, run.run_id);
    const viewedOnA = readEvents(a, run.run_id);

    // A stops heartbeating without finishing its run, as a replica whose database writes stall
    // would; it keeps writing its liveness key, so it is not taken for stopped (SIGKILL: below).
    await a.app.agent.leases.stop();
    const ended = await eventually(async () => {
      const record = (await json(await b.request(`/api/v1/runs/${run.run_id}`))).data;
      return record.finished_at !== null && record;
    });
    expect(ended).toMatchObject({ status: 'error', error: DATABASE_CUT_OFF });
    const { events } = await viewed;
    expect(events.map((event) => event.event)).toEqual(['run.start', 'run.error']);
    expect(JSON.parse(events.at(-1)!.data)).toMatchObject({ run_id: run.run_id, error: DATABASE_CUT_OFF });
    expect(b.log.lines.some((line) => line.includes(`held by run ${run.run_id}`))).toBe(true);
    expect((await postJson(b, '/api/v1/runs', { message: 'next', session_id: run.session_id, provider: 'offline' })).status).toBe(202);

    // A still had the run in flight; its own end of it later changes nothing that B stored, and its
    // viewer is handed the end B stored, not the one A could not store.
    await apps.splice(0, 1)[0]!.close();
    const onA = (await viewedOnA).events;
    expect(onA.map((event) => event.event)).toEqual(['run.start', 'run.error']);
    expect(JSON.parse(onA.at(-1)!.data)).toMatchObject({ error: DATABASE_CUT_OFF });
    expect((await json(await b.request(`/api/v1/runs/${run.run_id}`))).data).toMatchObject({ status: 'error', error: DATABASE_CUT_OFF });
    expect((await readEvents(b, run.run_id)).events.map((event) => event.event)).toEqual(['run.start', 'run.error']);
  });

  it('stops the run and the chat of a replica cut off from the database for longer than the lease; the run keeps the one end another replica stored', async () => {
    const leases = { sessionLeaseMs: 1_500, heartbeatMs: 250 };
    const relay = await databaseRelay();
    try {
      const redisKeyPrefix = uniquePrefix();
      const cutOff = config();
      cutOff.storage.postgres_url = relay.url(database.name);
      const [a, b] = await Promise.all([cutOff, config()].map((appConfig) => startTestApp({ env: ENV, redisKeyPrefix, ...leases, config: appConfig })));
      apps.push(a!, b!);
      const calls = server.requests.length;
      const run = await startRun(a!, { message: 'a run on a replica about to be cut off' });
      const session = (await json(await postJson(a!, '/api/v1/sessions', {}))).data;
      const chat = postJson(a!, '/api/v1/chat', { message: 'a chat on a replica about to be cut off', session_id: session.id });
      await waitingCalls(calls + 2);

      await relay.stop();
      const cutAt = Date.now();
      // Once their claims have lapsed, A stops both (the provider would answer after 20 s)...
      const answer = await chat;
      expect(answer.status).toBe(503);
      expect(await json(answer)).toMatchObject({ code: 'AGENTD_STORAGE_UNAVAILABLE' });
      await eventually(() => !a!.app.agent.isBusy(run.session_id));
      expect(Date.now() - cutAt).toBeLessThan(10_000);
      expect(a!.log.lines.filter((line) => line.includes('lapsed before it could be renewed'))).toHaveLength(2);
      // ...and B ends the run as interrupted, once, saying why: A wrote its liveness key all along,
      // so it did not stop; the database was out of its reach.
      const ended = await eventually(async () => {
        const record = (await json(await b!.request(`/api/v1/runs/${run.run_id}`))).data;
        return record.finished_at !== null && record;
      });
      expect(ended).toMatchObject({ status: 'error', error: DATABASE_CUT_OFF });

      // Back in touch, A adds nothing: the run's log ends with B's terminal event.
      await relay.start();
      await eventually(async () => (await fetch(`${a!.url}/api/v1/ready`)).status === 200);
      expect(await a!.app.agent.getRun(run.run_id)).toMatchObject({ status: 'error', error: DATABASE_CUT_OFF });
      expect((await readEvents(a!, run.run_id)).events.map((event) => event.event)).toEqual(['run.start', 'run.error']);
    } finally {
      await Promise.all(apps.splice(0).map((app) => app.close()));
      await relay.stop();
    }
  });

  it('never ends the run of a replica cut off from Redis alone: its liveness key lapses, but it renews its claims meanwhile', async () => {
    const relay = await redisRelay();
    redisKeyPrefix = uniquePrefix();
    const cutOff = config();
    cutOff.storage.redis_url = relay.url;
    const [a, b] = await Promise.all([cutOff, config()].map((appConfig) => startTestApp({ env: ENV, redisKeyPrefix, config: appConfig })));
    apps.push(a!, b!);
    const calls = server.requests.length;
    const run = await startRun(a!, { message: 'a run on a replica about to lose Redis' });
    await waitingCalls(calls + 1);
    // B has seen A's liveness key before it goes.
    await new Promise((resolve) => setTimeout(resolve, 1_500));

    await relay.cut();
    // A's key lapses within 3 s, and B would judge it within two more beats; wait past that.
    await new Promise((resolve) => setTimeout(resolve, 7_000));
    expect((await json(await b!.request(`/api/v1/runs/${run.run_id}`))).data).toMatchObject({ status: 'running', finished_at: null });
    expect((await postJson(b!, '/api/v1/runs', { message: 'too soon', session_id: run.session_id, provider: 'offline' })).status).toBe(409);
    expect(b!.log.lines.filter((line) => line.includes(run.run_id))).toEqual([]);
    expect(a!.app.agent.isBusy(run.session_id)).toBe(true);
  }, 30_000);

  /** A replica in a process of its own (built code), which the test can kill with SIGKILL. */
  const spawnReplica = async (leases: { sessionLeaseMs: number; heartbeatMs: number }, extra: Record<string, unknown> = {}) => {
    const home = mkdtempSync(join(tmpdir(), 'agentd-killed-'));
    const apiKey = 'key-of-the-replica-about-to-die';
    const replica = await spawnReplicaChild({ home, config: { ...config(), ...extra }, apiKey, env: ENV, leases, redisKeyPrefix });
    const { child, url } = replica;
    spawned.push({ child, home });
    return {
      url,
      webhookPort: replica.webhookPort,
      request: (path: string, body: unknown) => fetch(`${url}${path}`, {
        method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
      }),
      kill: replica.kill,
    };
  };
  const spawned: { child: ChildProcess; home: string }[] = [];
  afterEach(() => {
    for (const { child, home } of spawned.splice(0)) {
      child.kill('SIGKILL');
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('ends the run of a replica killed with SIGKILL mid-run, from the replica left', async () => {
    const leases = { sessionLeaseMs: 1_500, heartbeatMs: 250 };
    const [b] = await replicas(leases);
    const doomed = await spawnReplica(leases);
    const calls = server.requests.length;
    const started = await doomed.request('/api/v1/runs', { message: 'killed mid-run' });
    expect(started.status).toBe(202);
    const run = (await json(started)).data;
    await waitingCalls(calls + 1);
    expect((await postJson(b, '/api/v1/runs', { message: 'too soon', session_id: run.session_id, provider: 'offline' })).status).toBe(409);

    await doomed.kill();
    const ended = await eventually(async () => {
      const record = (await json(await b.request(`/api/v1/runs/${run.run_id}`))).data;
      return record.finished_at !== null && record;
    });
    expect(ended).toMatchObject({ status: 'error', error: REPLICA_STOPPED });
    expect((await readEvents(b, run.run_id)).events.map((event) => event.event)).toEqual(['run.start', 'run.error']);
    expect((await postJson(b, '/api/v1/runs', { message: 'next', session_id: run.session_id, provider: 'offline' })).status).toBe(202);
  });

  it('frees the budget a replica killed mid-call held, when its run is reaped: the session\'s next priced run goes ahead', async () => {
    const leases = { sessionLeaseMs: 1_500, heartbeatMs: 250 };
    // $3 / $15 per million tokens and 64 output tokens: one call's bound (its body with the tool
    // definitions) is about $0.0096, so beside a call in flight a second one does not fit under $0.015.
    const priced = {
      max_spend_usd: 0.015,
      providers: { ...config().providers, openai: { ...config().providers.openai, price: { input_per_mtok: 3, output_per_mtok: 15 }, max_tokens: 64 } },
    };
    const [b] = await replicas(leases, priced);
    const doomed = await spawnReplica(leases, priced);
    const calls = server.requests.length;
    const started = await doomed.request('/api/v1/runs', { message: 'killed mid-call' });
    expect(started.status).toBe(202);
    const run = (await json(started)).data;
    await waitingCalls(calls + 1);
    const pg = (b.app.storage as PostgresStorage).database;
    const held = async () => Number((await pg.query<{ n: string }>('SELECT count(*) AS n FROM cost_holds WHERE session_id = $1', [run.session_id])).rows[0]!.n);
    expect(await held()).toBe(1);

    await doomed.kill();
    const ended = await eventually(async () => {
      const record = (await json(await b.request(`/api/v1/runs/${run.run_id}`))).data;
      return record.finished_at !== null && record;
    });
    expect(ended).toMatchObject({ status: 'error', error: REPLICA_STOPPED });
    // Reaped in the same step as the run: nothing of the dead call is held any more.
    expect(await held()).toBe(0);

    // The next priced run on the session is not refused for the dead call's hold: its call is sent.
    const next = await startRun(b, { message: 'next', session_id: run.session_id });
    await waitingCalls(calls + 2);
    expect(server.requests.at(-1)!.raw).toContain('next');
    expect((await json(await b.request(`/api/v1/runs/${next.run_id}`))).data).toMatchObject({ status: 'running', error: null });
    expect(await held()).toBe(1);
    expect((await b.request(`/api/v1/runs/${next.run_id}/cancel`, { method: 'POST' })).status).toBe(202);
  });

  it('at the default leases (20 s), ends the run of a replica killed with SIGKILL and runs its sender\'s next message within seconds: its liveness key expired', async () => {
    const leases = { sessionLeaseMs: 20_000, heartbeatMs: 5_000 };
    const webhook = { webhook: { enabled: true, port: 0 } };
    const [b] = await replicas(leases, webhook);
    const doomed = await spawnReplica(leases, webhook);
    const calls = server.requests.length;
    for (const n of [1, 2]) expect(await postStatus(doomed.webhookPort, JSON.stringify({ prompt: `message ${n}`, sender: 'failover' }))).toBe(202);
    await waitingCalls(calls + 1);
    type Listed = { run_id: string; message: string; status: string; error: string | null };
    const runsOfSender = async () => (await json(await b.request('/api/v1/runs?session_id=webhook:failover&limit=10'))).data.runs as Listed[];
    const [first] = await eventually(async () => {
      const listed = await runsOfSender();
      return listed.length === 1 && listed[0]!.status === 'running' && listed;
    });
    // B has seen the doomed replica's liveness key (written every second) before the kill.
    await new Promise((resolve) => setTimeout(resolve, 1_500));

    await doomed.kill();
    const killedAt = Date.now();
    // The leases would free the session 20 to 25 s after the kill; the liveness key lapses within 3 s
    // and is judged within two beats. 8 s leaves a busy machine its slack.
    await eventually(async () => (await runsOfSender()).find((run) => run.run_id === first!.run_id)?.status === 'error', 8_000);
    const endedAfter = Date.now() - killedAt;
    await eventually(async () => (await runsOfSender()).some((run) => run.message === 'message 2'), 8_000 - endedAfter);
    const takenAfter = Date.now() - killedAt;
    const runs = await runsOfSender();
    expect(runs.find((run) => run.run_id === first!.run_id)).toMatchObject({ message: 'message 1', status: 'error', error: REPLICA_STOPPED });
    expect(runs.filter((run) => run.message === 'message 2')).toHaveLength(1);
    // Either replica left may have judged it; the one that did says why.
    expect(apps.some((app) => app.log.lines.some((line) => line.includes(`held by run ${first!.run_id}`) && line.includes('liveness key expired')))).toBe(true);
    process.stdout.write(`failover after kill -9: run ended in ${endedAfter} ms, next message taken in ${takenAfter} ms\n`);
  }, 30_000);

  it('takes the next webhook message of a sender whose run was on a replica killed mid-run as soon as that run is reaped', async () => {
    const leases = { sessionLeaseMs: 1_500, heartbeatMs: 250 };
    const webhook = { webhook: { enabled: true, port: 0 } };
    await replicas(leases, webhook);
    const [b] = apps;
    const doomed = await spawnReplica(leases, webhook);
    const calls = server.requests.length;
    // The first message runs on the doomed replica (its provider call hangs); the second waits for
    // the first one's run to end.
    for (const n of [1, 2]) expect(await postStatus(doomed.webhookPort, JSON.stringify({ prompt: `message ${n}`, sender: 'pager' }))).toBe(202);
    await waitingCalls(calls + 1);
    type Listed = { run_id: string; message: string; status: string; error: string | null };
    const runsOfSender = async () => (await json(await b!.request('/api/v1/runs?session_id=webhook:pager&limit=10'))).data.runs as Listed[];
    const [first] = await eventually(async () => {
      const listed = await runsOfSender();
      return listed.length === 1 && listed[0]!.status === 'running' && listed;
    });
    expect(first).toMatchObject({ message: 'message 1' });

    await doomed.kill();
    await eventually(() => apps.some((app) => app.log.lines.some((line) => line.includes(`held by run ${first!.run_id}`))));
    // Taken at once, not at the replicas' next periodic claim (every 10 s).
    await eventually(async () => (await runsOfSender()).some((run) => run.message === 'message 2'), 2_000);
    const runs = await runsOfSender();
    expect(runs.at(-1)).toMatchObject({ message: 'message 1', status: 'error', error: REPLICA_STOPPED });
    expect(runs.filter((run) => run.message === 'message 2')).toHaveLength(1);
  });
});
