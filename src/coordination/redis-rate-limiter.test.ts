import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { createMemoryLogger } from '../log.js';
import { describeWithRedis, PrivateRedis, testRedisUrl, uniquePrefix } from '../../test/helpers/redis.js';
import { COMMAND_TIMEOUT_MS, RedisConnection } from './redis-connection.js';
import { RedisRateLimiter } from './redis-rate-limiter.js';

describeWithRedis('RedisRateLimiter on the shared test Redis', () => {
  const connections: RedisConnection[] = [];
  const connect = async () => {
    const connection = new RedisConnection({ url: testRedisUrl!, role: 'test', log: createMemoryLogger() });
    connections.push(connection);
    expect(await connection.connect()).toBe(true);
    return connection;
  };
  afterAll(() => Promise.all(connections.map((c) => c.close())));

  it('two limiters on two connections share one window per key: `limit` in total', async () => {
    const prefix = uniquePrefix();
    const a = new RedisRateLimiter(await connect(), prefix, 3);
    const b = new RedisRateLimiter(await connect(), prefix, 3);
    const allowed = [await a.hit('ip'), await b.hit('ip'), await a.hit('ip'), await b.hit('ip'), await a.hit('ip')].map((d) => d.allowed);
    expect(allowed).toEqual([true, true, true, false, false]);
    // The refusal says when the oldest counted request leaves the 60 s window.
    const refused = await b.hit('ip');
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(59);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(60);
    // Another key has its own window; so has the same key under another listener's prefix.
    expect((await a.hit('other-ip')).allowed).toBe(true);
    expect((await new RedisRateLimiter(connections[0]!, `${prefix}webhook:`, 3).hit('ip')).allowed).toBe(true);
  });

  it('slides: a request counts until its second leaves the window, and the key then expires', async () => {
    const prefix = uniquePrefix();
    const connection = await connect();
    const limiter = new RedisRateLimiter(connection, prefix, 2, 2);
    expect((await limiter.hit('ip')).allowed).toBe(true);
    expect((await limiter.hit('ip')).allowed).toBe(true);
    const refused = await limiter.hit('ip');
    expect(refused.allowed).toBe(false);
    expect([1, 2]).toContain(refused.retryAfterSeconds);
    const ttl = await connection.client.ttl(`${prefix}ip`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(2);
    await sleep(2_100);
    expect((await limiter.hit('ip')).allowed).toBe(true);
    // Only the live second's counter is left: the stale ones were deleted on the way.
    expect(Object.values(await connection.client.hgetall(`${prefix}ip`))).toEqual(['1']);
    await sleep(2_100);
    expect(await connection.client.exists(`${prefix}ip`)).toBe(0);
  });
});

describeWithRedis('RedisRateLimiter when Redis fails', () => {
  let redis: PrivateRedis;
  let connection: RedisConnection;
  const log = createMemoryLogger();
  beforeAll(async () => {
    redis = await PrivateRedis.start();
    connection = new RedisConnection({ url: redis.url, role: 'test', log });
    expect(await connection.connect()).toBe(true);
  });
  afterEach(() => redis.thaw());
  afterAll(async () => {
    await connection.close();
    await redis.stop();
  });

  it('rejects within the command timeout when Redis hangs, instead of waiting for it', async () => {
    const limiter = new RedisRateLimiter(connection, uniquePrefix(), 5);
    expect((await limiter.hit('ip')).allowed).toBe(true);
    redis.freeze();
    const started = performance.now();
    await expect(limiter.hit('ip')).rejects.toThrow(/timed out/i);
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThanOrEqual(COMMAND_TIMEOUT_MS - 20);
    expect(waited).toBeLessThan(COMMAND_TIMEOUT_MS + 500);
  });

  it('rejects at once while Redis is down, and counts again by itself once it is back', async () => {
    const limiter = new RedisRateLimiter(connection, uniquePrefix(), 5);
    await redis.stop();
    await expect.poll(() => connection.isReachable).toBe(false);
    // At once, not after the timeout: nothing waits in an offline queue to be replayed on reconnect.
    const started = performance.now();
    await expect(limiter.hit('ip')).rejects.toThrow();
    expect(performance.now() - started).toBeLessThan(100);
    await redis.start();
    await expect.poll(() => connection.isReachable, { timeout: 5_000 }).toBe(true);
    // A fresh Redis has an empty script cache: the script is sent again, and the window is new.
    expect((await limiter.hit('ip')).allowed).toBe(true);
    expect(log.lines.some((line) => line.includes('unreachable'))).toBe(true);
    expect(log.lines.some((line) => line.includes('reachable again'))).toBe(true);
  });
});
