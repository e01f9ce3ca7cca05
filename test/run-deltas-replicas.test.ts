import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeLlmServer } from './fakes/fake-llm-server.js';
import { startFakeOpenAI } from './fakes/openai-server.js';
import { parseSse } from './helpers/agent.js';
import { createTestDatabase, postgresTestUrl, type TestDatabase } from './helpers/postgres.js';
import { PrivateRedis, testRedisUrl } from './helpers/redis.js';
import { ReplicaSet } from './helpers/serve-replicas.js';

/**
 * The answer as it is written, across replicas: a run executing on A (two `agentd serve` on one
 * PostgreSQL database and one Redis), watched with `include=deltas` on B, gets its pieces over
 * the Redis bus while the upstream is still streaming.
 */
const [A, B] = [0, 1] as const;

describe.skipIf(postgresTestUrl === null || testRedisUrl === undefined)('streamed answers across replicas', () => {
  let database: TestDatabase;
  let redis: PrivateRedis;
  let upstream: FakeLlmServer;
  let replicas: ReplicaSet;

  beforeAll(async () => {
    database = await createTestDatabase();
    redis = await PrivateRedis.start();
    upstream = await startFakeOpenAI();
    replicas = await ReplicaSet.start({ count: 2, postgresUrl: database.url, redisUrl: redis.url, upstream, rateLimitRpm: 1_000 });
  }, 60_000);
  afterAll(async () => {
    await replicas?.close();
    await upstream?.close();
    await redis?.stop();
    await database?.drop();
  }, 30_000);

  it('a viewer on B of a run on A gets the deltas before the end, adding up to the answer', async () => {
    const text = Array.from({ length: 30 }, (_, i) => `piece${i}`).join(' ');
    // The answer starts after a pause, so B is watching before the first piece.
    upstream.enqueue({ text, delayMs: 500, chunkDelayMs: 25 });
    const started = await replicas.post(A, '/api/v1/runs', { message: 'stream it' });
    expect(started.status).toBe(202);
    const runId = started.body.data.run_id as string;
    const onB = await replicas.events(B, runId, undefined, '?include=deltas');
    await onB.waitFor((body) => body.includes('event: run.delta'));
    // A piece arrived while the answer was still being written.
    expect(onB.body()).not.toContain('event: run.complete');
    const events = parseSse(await onB.ended());
    const pieces = events.filter((e) => e.event === 'run.delta');
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.every((e) => e.id === undefined)).toBe(true);
    const complete = events.find((e) => e.event === 'run.complete')!;
    expect(pieces.map((e) => JSON.parse(e.data).text).join('')).toBe(text);
    expect(JSON.parse(complete.data).response).toBe(text);
    expect(events.at(-1)!.event).toBe('run.complete');
    // Stored events keep their ids; the live ones took none.
    expect(events.filter((e) => e.id !== undefined).map((e) => e.id)).toEqual(['1', '2']);
  });
});
