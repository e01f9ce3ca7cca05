import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { REPLICA_STOPPED } from '../src/runs/session-leases.js';
import type { PostgresStorage } from '../src/storage/postgres/index.js';
import { startFakeAnthropic } from './fakes/anthropic-server.js';
import type { FakeLlmServer } from './fakes/fake-llm-server.js';
import { startFakeOpenAI } from './fakes/openai-server.js';
import { eventually, json, startRun } from './helpers/agent.js';
import { startTestApp, type TestApp, type TestAppOptions } from './helpers/app.js';
import { createTestDatabase, postgresTestUrl, type TestDatabase } from './helpers/postgres.js';
import { testRedisUrl, uniquePrefix } from './helpers/redis.js';
import { spawnReplicaChild } from './helpers/replica-child.js';
import { postStatus } from './helpers/webhook.js';

/**
 * The budget a replica killed with `kill -9` mid-call held is given back: by the reaper that ends
 * its run, or by the statement of a new run that takes its lapsed claim over before any reaper
 * ran; and on SQLite by the next start. `max_spend_usd` is small enough that the dead call's hold
 * alone refuses the session's next call (it did for 15 minutes, the hold's expiry).
 */
type Vendor = 'openai' | 'anthropic';
const ENV = { OPENAI_API_KEY: 'sk-test-openai-0123456789abcdefghij', ANTHROPIC_API_KEY: 'sk-ant-test-0123456789abcdef' };
// $3 / $15 per million tokens and 64 output tokens: one call's bound (its body with the tool
// definitions) is about $0.01, so beside a call in flight (or its stale hold) a second one does not
// fit under $0.015.
const CAP = 0.015;
const priced = (kind: Vendor, server: FakeLlmServer) => ({
  max_spend_usd: CAP,
  providers: {
    default: kind,
    [kind]: {
      api_key_env: kind === 'openai' ? 'OPENAI_API_KEY' : 'ANTHROPIC_API_KEY',
      model: kind === 'openai' ? 'gpt-4.1-mini' : 'claude-haiku-4-5',
      base_url: server.baseUrl,
      price: { input_per_mtok: 3, output_per_mtok: 15 },
      max_tokens: 64,
    },
  },
  network: { allowed_hosts: [server.host] },
});
// Every provider call waits this long: a call stays in flight until its process is killed or its run cancelled.
const STALL_MS = 30_000;
const startFake = (kind: Vendor) => (kind === 'openai' ? startFakeOpenAI({ delayMs: STALL_MS }) : startFakeAnthropic({ delayMs: STALL_MS }));

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

interface Spawned {
  url: string;
  webhookPort: number;
  get(path: string): Promise<any>;
  post(path: string, body: unknown): Promise<Response>;
  kill(): Promise<void>;
}

/** A replica in a process of its own (built code) on `home`, which the test kills with SIGKILL. */
async function spawnReplica(home: string, config: Record<string, unknown>, leases = { sessionLeaseMs: 1_500, heartbeatMs: 250 }): Promise<Spawned> {
  const apiKey = 'key-of-the-replica-about-to-die';
  const replica = await spawnReplicaChild({ home, config, apiKey, env: ENV, leases });
  cleanups.push(() => {
    replica.child.kill('SIGKILL');
  });
  const { url } = replica;
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  return {
    url,
    webhookPort: replica.webhookPort,
    get: async (path) => json(await fetch(`${url}${path}`, { headers })),
    post: (path, body) => fetch(`${url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) }),
    kill: replica.kill,
  };
}

const tempHome = (): string => {
  const home = mkdtempSync(join(tmpdir(), 'agentd-holds-'));
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  return home;
};

describe.skipIf(postgresTestUrl === null || testRedisUrl === undefined)('three replicas on PostgreSQL and Redis, one killed mid-call', () => {
  describe.each(['openai', 'anthropic'] as const)('with the %s provider', (kind) => {
    let database: TestDatabase;
    let server: FakeLlmServer;

    const setUp = async (survivors: TestAppOptions) => {
      database = await createTestDatabase();
      cleanups.push(() => database.drop());
      server = await startFake(kind);
      cleanups.push(() => server.close());
      const config = { storage: { backend: 'postgres' as const, postgres_url: database.url, redis_url: testRedisUrl }, ...priced(kind, server) };
      const redisKeyPrefix = uniquePrefix();
      const [b, c] = await Promise.all([0, 1].map(() => startTestApp({ env: ENV, redisKeyPrefix, ...survivors, config })));
      cleanups.push(async () => {
        await Promise.all([b!.close(), c!.close()]);
      });
      // A's process sees the same Redis keys as B and C (the prefix is part of its config).
      const a = await spawnReplica(tempHome(), { ...config, storage: { ...config.storage, redis_key_prefix: redisKeyPrefix } });
      const pg = (b!.app.storage as PostgresStorage).database;
      const holds = async (sessionId: string) => (await pg.query<{ id: string; amount_usd: number }>(
        'SELECT id, amount_usd FROM cost_holds WHERE session_id = $1', [sessionId])).rows;
      return { a, b: b!, c: c!, holds };
    };

    /** A run on A whose provider call hangs, with its hold in the store: A is then killed. */
    const runKilledMidCall = async (a: Spawned, holds: (sessionId: string) => Promise<{ id: string; amount_usd: number }[]>) => {
      const calls = server.requests.length;
      const started = await a.post('/api/v1/runs', { message: 'killed mid-call' });
      expect(started.status).toBe(202);
      const run = (await json(started)).data;
      await eventually(() => server.requests.length > calls);
      const [dead] = await holds(run.session_id);
      // The dead call's hold alone leaves too little for the next call's bound.
      expect(dead!.amount_usd).toBeLessThan(CAP);
      expect(2 * dead!.amount_usd).toBeGreaterThan(CAP);
      await a.kill();
      return { run, dead: dead!, killedAt: Date.now() };
    };

    /** The next run on the session, on `t`: its call is sent and it runs (not refused for the budget). */
    const nextRunGoesAhead = async (t: TestApp, sessionId: string) => {
      const calls = server.requests.length;
      const next = await startRun(t, { message: 'the next question', session_id: sessionId });
      await eventually(async () => server.requests.length > calls
        || (await json(await t.request(`/api/v1/runs/${next.run_id}`))).data.status === 'error');
      const record = (await json(await t.request(`/api/v1/runs/${next.run_id}`))).data;
      expect(record).toMatchObject({ status: 'running', error: null });
      expect(server.requests.at(-1)!.raw).toContain('the next question');
      return next;
    };

    it('the reaper path: once a replica ends the killed run, the session\'s next priced run goes ahead on another replica', async () => {
      const { a, b, c, holds } = await setUp({ sessionLeaseMs: 1_500, heartbeatMs: 250 });
      const { run, killedAt } = await runKilledMidCall(a, holds);
      const ended = await eventually(async () => {
        const record = (await json(await c.request(`/api/v1/runs/${run.run_id}`))).data;
        return record.finished_at !== null && record;
      });
      const reapedAt = Date.now();
      expect(ended).toMatchObject({ status: 'error', error: REPLICA_STOPPED });
      expect([b, c].some((t) => t.log.lines.some((line) => line.includes(`held by run ${run.run_id}`)))).toBe(true);
      // Reaped in the same step as the run: nothing of the dead call is held any more.
      expect(await holds(run.session_id)).toEqual([]);

      const next = await nextRunGoesAhead(b, run.session_id);
      const allowedAt = Date.now();
      const [own] = await holds(run.session_id);
      expect((await holds(run.session_id)).length).toBe(1);
      expect(own!.amount_usd).toBeGreaterThan(0);
      process.stdout.write(`[budget holds, ${kind}, reaper] kill -9 -> run reaped ${reapedAt - killedAt} ms, -> next priced run's call sent ${allowedAt - killedAt} ms\n`);
      expect((await b.request(`/api/v1/runs/${next.run_id}/cancel`, { method: 'POST' })).status).toBe(202);
    });

    it('the take-over path: a run sent to another replica once the killed replica\'s lease lapsed, before any reaper ran, goes ahead and holds the only hold', async () => {
      // B and C renew and reap only every 2 minutes: none of them reaps A's claim during the test.
      const { a, b, c, holds } = await setUp({ sessionLeaseMs: 60_000, heartbeatMs: 120_000 });
      const { run, dead, killedAt } = await runKilledMidCall(a, holds);
      // A's claim lapses 1.5 s after its last renewal; until then the session is busy.
      await eventually(async () => (await c.app.agent.leases.holder(run.session_id)) === null);
      const lapsedAt = Date.now();

      const next = await nextRunGoesAhead(c, run.session_id);
      const allowedAt = Date.now();
      // No reaper ran: the claim was taken over by the run's own statement, which freed the dead hold.
      expect([b, c].some((t) => t.log.lines.some((line) => line.includes('freed session')))).toBe(false);
      const left = await holds(run.session_id);
      expect(left).toHaveLength(1);
      expect(left[0]!.id).not.toBe(dead.id);
      expect((await c.app.agent.leases.holder(run.session_id))).toMatchObject({ holder_id: next.run_id, kind: 'run' });
      process.stdout.write(`[budget holds, ${kind}, take-over] kill -9 -> lease lapsed ${lapsedAt - killedAt} ms, -> next priced run's call sent ${allowedAt - killedAt} ms\n`);
      expect((await c.request(`/api/v1/runs/${next.run_id}/cancel`, { method: 'POST' })).status).toBe(202);
      await eventually(async () => (await holds(run.session_id)).length === 0);
    });
  });
});

describe('one process on SQLite, killed mid-call', () => {
  it('frees the killed call\'s hold at the next start: the sender\'s next priced message runs', async () => {
    const server = await startFakeOpenAI({ delayMs: STALL_MS });
    cleanups.push(() => server.close());
    const home = tempHome();
    const config = { ...priced('openai', server), webhook: { enabled: true, port: 0 } };
    const held = () => {
      const db = new BetterSqlite3(join(home, 'agentd.db'), { readonly: true });
      try {
        return db.prepare("SELECT count(*) FROM cost_holds WHERE session_id = 'webhook:pager'").pluck().get() as number;
      } finally {
        db.close();
      }
    };

    const first = await spawnReplica(home, config);
    expect(await postStatus(first.webhookPort, JSON.stringify({ prompt: 'message 1', sender: 'pager' }))).toBe(202);
    await eventually(() => server.requests.length === 1);
    expect(held()).toBe(1);
    await first.kill();
    expect(held()).toBe(1);

    // The next start marks the run interrupted and drops the hold its call left.
    const second = await spawnReplica(home, config);
    const runs = async () => (await second.get('/api/v1/runs?session_id=webhook:pager&limit=10')).data.runs as { message: string; status: string; error: string | null }[];
    expect(await runs()).toEqual([expect.objectContaining({ message: 'message 1', status: 'error', error: expect.stringMatching(/interrupted/) })]);
    expect(held()).toBe(0);
    expect(await postStatus(second.webhookPort, JSON.stringify({ prompt: 'message 2', sender: 'pager' }))).toBe(202);
    await eventually(() => server.requests.length === 2);
    expect(server.requests[1]!.raw).toContain('message 2');
    expect((await runs()).find((run) => run.message === 'message 2')).toMatchObject({ status: 'running', error: null });
    expect(held()).toBe(1);
    await second.kill();
  });
});
