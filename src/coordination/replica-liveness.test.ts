import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, expect, it } from 'vitest';
import { createMemoryLogger } from '../log.js';
import { describeWithRedis, redisRelay, testRedisUrl, uniquePrefix } from '../../test/helpers/redis.js';
import { RedisConnection } from './redis-connection.js';
import { ReplicaLiveness } from './replica-liveness.js';

/**
 * Two replicas' liveness on a real Redis: the judge (J) and the judged (X). X's claims in the
 * database are stood for by a counter its `unrecorded` renewals advance, as `SessionLeases.renewNow`
 * advances their lease ends.
 */
describeWithRedis('ReplicaLiveness on a real Redis', () => {
  const TIMING = { intervalMs: 300, ttlMs: 900 };
  const running: { stop(): Promise<void> }[] = [];
  const connections: RedisConnection[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((r) => r.stop()));
    await Promise.all(connections.splice(0).map((c) => c.close()));
  });

  const replica = async (id: string, url: string, prefix: string, renewals: Map<string, number>, stopped: [string, string | null][]) => {
    const connection = new RedisConnection({ url, role: 'test', log: createMemoryLogger() });
    connections.push(connection);
    await connection.connect();
    const liveness = new ReplicaLiveness({
      connection, keyPrefix: prefix, replicaId: id, log: createMemoryLogger(), ...TIMING,
      renewedBy: async (other) => (renewals.has(other) ? `renewal ${renewals.get(other)}` : null),
      stopped: async (other, upTo) => void stopped.push([other, upTo]),
      unrecorded: async () => void renewals.set(id, (renewals.get(id) ?? 0) + 1),
    });
    running.push(liveness);
    await liveness.start();
    return liveness;
  };

  it('judges a replica that stopped writing its key stopped within a TTL and two beats, once, with the renewal it saw', async () => {
    const prefix = uniquePrefix();
    const renewals = new Map([['rep_x', 7]]);
    const stopped: [string, string | null][] = [];
    await replica('rep_j', testRedisUrl!, prefix, renewals, stopped);
    const x = await replica('rep_x', testRedisUrl!, prefix, renewals, stopped);
    await sleep(TIMING.intervalMs * 3);
    expect(stopped).toEqual([]);

    await x.stop();
    for (let waited = 0; stopped.length === 0 && waited < 5_000; waited += 50) await sleep(50);
    expect(stopped).toEqual([['rep_x', 'renewal 7']]);
    // Judged once: taken off the roll, nobody judges it again.
    await sleep(TIMING.intervalMs * 4);
    expect(stopped).toEqual([['rep_x', 'renewal 7']]);
  });

  it('tells when each other replica last wrote its key, by that replica\'s clock, and vouches for nobody once its own beats stop reaching Redis', async () => {
    const prefix = uniquePrefix();
    const stopped: [string, string | null][] = [];
    const relay = await redisRelay();
    const j = await replica('rep_j', relay.url, prefix, new Map(), stopped);
    const before = Date.now();
    await replica('rep_x', testRedisUrl!, prefix, new Map(), stopped);
    await sleep(TIMING.intervalMs * 2);
    const written = j.lastWritten().get('rep_x')!;
    expect(written).toBeGreaterThanOrEqual(before);
    expect(written).toBeLessThanOrEqual(Date.now());
    expect([...j.lastWritten().keys()]).toEqual(['rep_x']);
    // J's Redis gone: what it read goes stale within a TTL, and then it vouches for nobody.
    await relay.cut();
    await sleep(TIMING.ttlMs + TIMING.intervalMs * 2);
    expect(j.lastWritten().size).toBe(0);
  });

  it('never judges stopped a replica cut off from Redis alone while it renews its claims; judges it once they stop too', async () => {
    const prefix = uniquePrefix();
    const renewals = new Map<string, number>();
    const stopped: [string, string | null][] = [];
    const relay = await redisRelay();
    await replica('rep_j', testRedisUrl!, prefix, renewals, stopped);
    const x = await replica('rep_x', relay.url, prefix, renewals, stopped);
    await sleep(TIMING.intervalMs * 3);

    await relay.cut();
    // Its key lapses after 0.9 s; it renews its claims every half beat meanwhile.
    await sleep(TIMING.ttlMs + TIMING.intervalMs * 8);
    expect(renewals.get('rep_x')).toBeGreaterThan(3);
    expect(stopped).toEqual([]);

    // Now it dies as well: no more renewals, and J, which saw its key, judges it stopped.
    await x.stop();
    const last = renewals.get('rep_x');
    for (let waited = 0; stopped.length === 0 && waited < 5_000; waited += 50) await sleep(50);
    expect(stopped).toEqual([['rep_x', `renewal ${last}`]]);
  });

  it('does not judge a replica on the roll whose key it never saw (its Redis may have been down from its start)', async () => {
    const prefix = uniquePrefix();
    const stopped: [string, string | null][] = [];
    const connection = new RedisConnection({ url: testRedisUrl!, role: 'test', log: createMemoryLogger() });
    connections.push(connection);
    await connection.connect();
    await connection.client.sadd(`${prefix}replicas`, 'rep_unseen');
    await replica('rep_j', testRedisUrl!, prefix, new Map([['rep_unseen', 1]]), stopped);
    await sleep(TIMING.ttlMs + TIMING.intervalMs * 4);
    expect(stopped).toEqual([]);
    expect(await connection.client.smembers(`${prefix}replicas`)).toEqual(expect.arrayContaining(['rep_unseen', 'rep_j']));
  });

  it('judges nobody while its own Redis is down, however long the other keys have been gone (the leases decide then)', async () => {
    const prefix = uniquePrefix();
    const renewals = new Map<string, number>();
    const stopped: [string, string | null][] = [];
    const relay = await redisRelay();
    await replica('rep_j', relay.url, prefix, renewals, stopped);
    const x = await replica('rep_x', testRedisUrl!, prefix, renewals, stopped);
    await sleep(TIMING.intervalMs * 3);

    await relay.cut();
    await x.stop();
    await sleep(TIMING.ttlMs + TIMING.intervalMs * 6);
    expect(stopped).toEqual([]);
    expect(renewals.get('rep_j')).toBeGreaterThan(0);
  });
});
