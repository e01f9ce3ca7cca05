import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeLlmServer } from './fakes/fake-llm-server.js';
import { startFakeOpenAI } from './fakes/openai-server.js';
import { parseSse } from './helpers/agent.js';
import { createTestDatabase, postgresTestUrl, type TestDatabase } from './helpers/postgres.js';
import { PrivateRedis, testRedisUrl } from './helpers/redis.js';
import { ReplicaSet } from './helpers/serve-replicas.js';

/**
 * Three `agentd serve` processes on one PostgreSQL database and one Redis, driven round-robin:
 * what a client does on one replica is seen, consistent and enforced on the others. The Redis is
 * the test's own (`PrivateRedis`), so stopping it touches nobody else and no key outlives the file.
 */
const RATE_LIMIT = 30;
const [A, B, C] = [0, 1, 2] as const;

describe.skipIf(postgresTestUrl === null || testRedisUrl === undefined)('three agentd serve replicas on PostgreSQL and Redis', () => {
  let database: TestDatabase;
  let redis: PrivateRedis;
  let upstream: FakeLlmServer;
  let replicas: ReplicaSet;

  beforeAll(async () => {
    database = await createTestDatabase();
    redis = await PrivateRedis.start();
    upstream = await startFakeOpenAI();
    replicas = await ReplicaSet.start({ count: 3, postgresUrl: database.url, redisUrl: redis.url, upstream, rateLimitRpm: RATE_LIMIT });
  }, 60_000);
  afterAll(async () => {
    await replicas?.close();
    await upstream?.close();
    await redis?.stop();
    await database?.drop();
  }, 30_000);

  /** The frames of a run's stream on `index`, read to its end. */
  const streamed = async (index: number, runId: string, lastEventId?: number) => parseSse(await (await replicas.events(index, runId, lastEventId)).ended());
  const terminals = (events: { event: string | undefined }[]) => events.filter((e) => /^run\.(complete|error|cancelled)$/.test(e.event ?? ''));

  it('streams a run started on A from B and C (same ids, Last-Event-ID replay, one terminal event)', async () => {
    // The model asks for a calculation, then takes 1.5 s to answer: the viewers attach mid-run.
    upstream.enqueue({ toolCalls: [{ name: 'calculator', arguments: { expression: '6*7' } }] }, { text: 'It is 42.', delayMs: 1_500 });
    const started = await replicas.post(A, '/api/v1/runs', { message: 'what is six times seven?' });
    expect(started.status).toBe(202);
    const runId = started.body.data.run_id as string;
    const onB = await replicas.events(B, runId);
    await onB.waitFor((body) => body.includes('event: tool.result'));
    expect(onB.body()).not.toContain('event: run.complete'); // attached while the run was in flight
    const resumedOnC = await replicas.events(C, runId, 2);
    const [fromB, fromC] = [parseSse(await onB.ended()), parseSse(await resumedOnC.ended())];

    expect(fromB.map((e) => [e.id, e.event])).toEqual([['1', 'run.start'], ['2', 'tool.request'], ['3', 'tool.result'], ['4', 'run.complete']]);
    expect(JSON.parse(fromB[3]!.data)).toMatchObject({ run_id: runId, response: 'It is 42.', tools_used: ['calculator'] });
    expect(fromC).toEqual(fromB.slice(2));
    // Once finished, A (where it ran) replays exactly what B delivered live.
    expect(await streamed(A, runId)).toEqual(fromB);
    expect(terminals(fromB)).toHaveLength(1);
  });

  it('cancels from C a run started on A and watched on B', async () => {
    upstream.enqueue({ text: 'too late', delayMs: 20_000 });
    const runId = (await replicas.post(A, '/api/v1/runs', { message: 'take your time' })).body.data.run_id as string;
    const onB = await replicas.events(B, runId);
    await onB.waitFor((body) => body.includes('event: run.start'));
    const cancelled = await replicas.post(C, `/api/v1/runs/${runId}/cancel`, {});
    expect(cancelled).toMatchObject({ status: 202, body: { data: { run_id: runId, status: 'cancelled' } } });
    const events = parseSse(await onB.ended());
    expect(events.map((e) => e.event)).toEqual(['run.start', 'run.cancelled']);
    expect((await replicas.json(A, `/api/v1/runs/${runId}`)).body.data.status).toBe('cancelled');
    expect((await replicas.post(B, `/api/v1/runs/${runId}/cancel`, {})).body.code).toBe('AGENTD_RUN_FINISHED');
  });

  it('uses on B a session created on A, and finds on C the turns stored through A', async () => {
    const word = `zeppelin${Date.now()}`;
    const session = (await replicas.post(A, '/api/v1/sessions', { name: 'shared' })).body.data;
    expect((await replicas.post(B, '/api/v1/chat', { session_id: session.id, message: `remember ${word}` })).status).toBe(200);
    expect((await replicas.post(A, '/api/v1/chat', { session_id: session.id, message: `and ${word} again` })).status).toBe(200);
    expect((await replicas.json(C, `/api/v1/sessions/${session.id}`)).body.data).toMatchObject({ id: session.id, name: 'shared', turn_count: 4 });
    const found = (await replicas.json(C, `/api/v1/memory/search?q=${word}`)).body.data.results.map((r: { content: string }) => r.content);
    expect(found.sort()).toEqual([`and ${word} again`, `remember ${word}`]);
  });
});
