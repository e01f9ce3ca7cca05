import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeLlmServer } from './fakes/fake-llm-server.js';
import { startFakeOpenAI } from './fakes/openai-server.js';
import { eventually } from './helpers/agent.js';
import { HangingProxy } from './helpers/hanging-proxy.js';
import { createTestDatabase, postgresTestUrl, type TestDatabase } from './helpers/postgres.js';
import { PrivateRedis, testRedisUrl } from './helpers/redis.js';
import { ReplicaSet } from './helpers/serve-replicas.js';

/**
 * Three `agentd serve` replicas on one PostgreSQL database and one Redis, with replica A reaching
 * Redis through a proxy that can hang (TCP open, no replies) while B and C reach it directly: what a
 * load balancer's readiness probes see, and what the scheduler does while every replica is up.
 */
const [A, B, C] = [0, 1, 2] as const;
/** How late a fire may be claimed after its occurrence fell due, every replica up: under one poll. */
const LATE_BOUND_MS = 800;

describe.skipIf(postgresTestUrl === null || testRedisUrl === undefined)('three replicas: readiness and the scheduler under faults', () => {
  let database: TestDatabase;
  let redis: PrivateRedis;
  let proxy: HangingProxy;
  let upstream: FakeLlmServer;
  let replicas: ReplicaSet;

  beforeAll(async () => {
    database = await createTestDatabase();
    redis = await PrivateRedis.start();
    proxy = await HangingProxy.start(redis.port);
    upstream = await startFakeOpenAI();
    replicas = await ReplicaSet.start({
      count: 3, postgresUrl: database.url, redisUrl: redis.url, upstream, rateLimitRpm: 1_000_000,
      redisUrlOf: (index) => (index === A ? `redis://127.0.0.1:${proxy.port}` : undefined),
    });
  }, 60_000);
  afterAll(async () => {
    await replicas?.close();
    await proxy?.close();
    await upstream?.close();
    await redis?.stop();
    await database?.drop();
  }, 30_000);

  const ready = (index: number) => replicas.json(index, '/api/v1/ready');
  const READY = { status: 200, body: { status: 'ok', data: { status: 'ready' } } };
  const REDIS_NOT_READY = { status: 503, body: { status: 'error', error: 'Not ready: Redis is unreachable', code: 'AGENTD_NOT_READY' } };

  it('takes the replica whose Redis hangs out of rotation at its first probe (503 naming Redis, as its API answers 503); the others stay ready', async () => {
    expect(await Promise.all([A, B, C].map(ready))).toEqual([READY, READY, READY]);
    proxy.hang();
    try {
      // No polling: the first probes after the hang already tell, and probes arriving together agree.
      expect(await Promise.all([ready(A), ready(A), ready(A)])).toEqual([REDIS_NOT_READY, REDIS_NOT_READY, REDIS_NOT_READY]);
      expect((await replicas.json(A, '/api/v1/health')).body).toMatchObject({ code: 'AGENTD_COORDINATION_UNAVAILABLE' });
      expect(await Promise.all([B, C].map(ready))).toEqual([READY, READY]);
      // Still hung a while later (a connection that stays open never looks down by itself).
      await sleep(1_500);
      expect(await ready(A)).toEqual(REDIS_NOT_READY);
    } finally {
      proxy.resume();
    }
    await eventually(async () => (await ready(A)).status === 200, 10_000);
    expect((await replicas.json(A, '/api/v1/health')).status).toBe(200);
  }, 30_000);

  it('fires an `every 1 seconds` job once per occurrence across the three, none missed across a 2 s stall of the service, claimed promptly once caught up', async () => {
    const created = await replicas.post(B, '/api/v1/scheduler/jobs', { name: 'secondly', schedule: 'every 1 seconds', task: 'what is 2+2?', provider: 'offline' });
    expect(created.status).toBe(201);
    const { id, next_run_at: first } = created.body.data as { id: string; next_run_at: string };
    await sleep(2_500);
    // The whole service stalls for 2 s (SIGSTOP, every replica): the claims after it come late,
    // well under the minute that would make them misses.
    for (const served of replicas.served) served!.child.kill('SIGSTOP');
    await sleep(2_000);
    for (const served of replicas.served) served!.child.kill('SIGCONT');
    const resumed = Date.now();
    await sleep(3_500);
    expect((await replicas.post(C, '/api/v1/controls/scheduler.pause_job', { target: id, confirm: `pause-job:${id}` })).status).toBe(200);

    // A fire claimed just before the pause is counted once its run exists (after its event).
    const listed = async () => (await replicas.json(C, '/api/v1/scheduler/jobs')).body.data.jobs.find((j: { id: string }) => j.id === id);
    await eventually(async () => (await listed()).last_status !== 'starting', 5_000);
    const job = await listed();
    expect(job).toMatchObject({ missed: 0, last_missed_at: null });
    const events = (await replicas.json(C, `/api/v1/audit?task_id=${id}&limit=500`)).body.data.events as
      { action: string; timestamp: string; detail: { scheduled_for?: string } }[];
    expect(events.filter((e) => e.action === 'missed')).toEqual([]);
    const claims = events.filter((e) => e.action === 'fire' || e.action === 'skip')
      .map((e) => ({ due: Date.parse(e.detail.scheduled_for!), late: Date.parse(e.timestamp) - Date.parse(e.detail.scheduled_for!) }))
      .sort((x, y) => x.due - y.due);
    // Every occurrence from the first on, once: no double fire, no gap.
    expect(claims.length).toBeGreaterThanOrEqual(4);
    expect(claims.map((c) => c.due)).toEqual(Array.from({ length: claims.length }, (_, i) => Date.parse(first) + i * 1_000));
    const caughtUp = claims.filter((c) => c.due >= resumed + 1_000);
    expect(caughtUp.length).toBeGreaterThanOrEqual(2);
    for (const claim of caughtUp) expect(claim.late).toBeLessThan(LATE_BOUND_MS);
    expect(job.run_count).toBe(events.filter((e) => e.action === 'fire').length);
  }, 30_000);
});
