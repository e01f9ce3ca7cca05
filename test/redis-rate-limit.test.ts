import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { json, postJson } from './helpers/agent.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { describeWithRedis, PrivateRedis, testRedisUrl, uniquePrefix } from './helpers/redis.js';
import { postStatus } from './helpers/webhook.js';

const SECURITY_HEADERS = { 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY', 'cache-control': 'no-store' };
const UNAVAILABLE = { status: 'error', error: 'State shared between replicas is unreachable, retry later', code: 'AGENTD_COORDINATION_UNAVAILABLE' };

function replica(redisUrl: string, redisKeyPrefix: string, config: Record<string, unknown> = {}): Promise<TestApp> {
  return startTestApp({ redisKeyPrefix, config: { storage: { redis_url: redisUrl }, ...config } });
}

/** What a refusal looks like on the wire: status, the headers that matter, the envelope. */
async function answer(response: Response): Promise<{ status: number; headers: Record<string, string | null>; body: unknown }> {
  const headers = Object.fromEntries([...Object.keys(SECURITY_HEADERS), 'retry-after'].map((name) => [name, response.headers.get(name)]));
  return { status: response.status, headers, body: await response.json() };
}

describeWithRedis('the API rate limit shared by two replicas', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    const prefix = uniquePrefix();
    a = await replica(testRedisUrl!, prefix, { api: { rate_limit_rpm: 5 } });
    b = await replica(testRedisUrl!, prefix, { api: { rate_limit_rpm: 5 } });
  });
  afterAll(() => Promise.all([a?.close(), b?.close()]));

  it('allows rate_limit_rpm requests per client IP for the whole service, not per replica', async () => {
    const statuses: number[] = [];
    for (const app of [a, b, a, b, a, b, a, b]) statuses.push((await app.request('/api/v1/health')).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    const refused = await answer(await a.request('/api/v1/health'));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(59);
    expect(refused.body).toEqual({ status: 'error', error: 'Rate limit exceeded', code: 'AGENTD_RATE_LIMITED' });
  });
});

describeWithRedis('storage.redis_key_prefix', () => {
  let t: TestApp;
  afterAll(() => t?.close());

  it('starts every key the service keeps in Redis, so services sharing one Redis keep apart', async () => {
    const prefix = uniquePrefix();
    t = await startTestApp({ config: { storage: { redis_url: testRedisUrl!, redis_key_prefix: prefix } } });
    expect((await t.request('/api/v1/health')).status).toBe(200);
    const redis = new Redis(testRedisUrl!);
    try {
      expect(await redis.keys(`${prefix}*`)).toEqual([expect.stringMatching(new RegExp(`^${prefix}ratelimit:api:`))]);
    } finally {
      redis.disconnect();
    }
  });
});

describeWithRedis('the webhook rate limit shared by two replicas', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    const prefix = uniquePrefix();
    const webhook = { webhook: { enabled: true, port: 0 } };
    a = await replica(testRedisUrl!, prefix, webhook);
    b = await replica(testRedisUrl!, prefix, webhook);
  });
  afterAll(() => Promise.all([a?.close(), b?.close()]));

  it('allows the webhook\'s 60 requests a minute per client IP across both listeners', async () => {
    const ports = [a.app.webhook!.channel.port, b.app.webhook!.channel.port];
    // The rate limit comes before the Content-Type check: a 415 still spends the client's budget,
    // and nothing is queued.
    const statuses: number[] = [];
    for (let i = 0; i < 62; i++) statuses.push(await postStatus(ports[i % 2]!, '{}', { 'content-type': 'text/plain' }));
    expect(statuses.slice(0, 60).every((status) => status === 415)).toBe(true);
    expect(statuses.slice(60)).toEqual([429, 429]);
    // The API's windows are another listener's: its requests still pass.
    expect((await a.request('/api/v1/health')).status).toBe(200);
  });
});

describeWithRedis('fail closed when Redis is down, recover when it returns', () => {
  const password = 'redis-pass-7f3a9c';
  let redis: PrivateRedis;
  let t: TestApp;
  beforeAll(async () => {
    redis = await PrivateRedis.start({ password });
    t = await replica(redis.url, uniquePrefix(), { webhook: { enabled: true, port: 0 } });
  });
  afterEach(() => redis.thaw());
  afterAll(async () => {
    await t?.close();
    await redis?.stop();
  });

  it('answers 503 with the envelope and the security headers, on the API and the webhook, then serves again', async () => {
    const webhookPort = t.app.webhook!.channel.port;
    expect((await t.request('/api/v1/health')).status).toBe(200);
    expect(await postStatus(webhookPort, JSON.stringify({ prompt: 'hello' }))).toBe(202);

    await redis.stop();
    const refused = await answer(await t.request('/api/v1/health'));
    expect(refused).toEqual({ status: 503, headers: { ...SECURITY_HEADERS, 'retry-after': '1' }, body: UNAVAILABLE });
    // No credential is checked, no work is done, before the rate limit: an unauthenticated client gets the same.
    expect((await fetch(`${t.url}/api/v1/sessions`, { method: 'POST' })).status).toBe(503);
    expect((await postJson(t, '/api/v1/runs', { message: 'what time is it?' })).status).toBe(503);
    const hook = await fetch(`http://127.0.0.1:${webhookPort}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"prompt":"x"}' });
    expect(await answer(hook)).toEqual({ status: 503, headers: { ...SECURITY_HEADERS, 'retry-after': '1' }, body: UNAVAILABLE });

    await redis.start();
    await expect.poll(async () => (await t.request('/api/v1/health')).status, { timeout: 10_000, interval: 100 }).toBe(200);
    expect(await postStatus(webhookPort, JSON.stringify({ prompt: 'hello again' }))).toBe(202);

    // The outage is in the log, said once per connection, with the address but never the password.
    const redisLines = t.log.lines.filter((line) => line.includes('redis'));
    expect(redisLines.filter((line) => line.includes('is unreachable')).map((line) => /\((\w+)\) is unreachable/.exec(line)?.[1]).sort())
      .toEqual(['commands', 'events']);
    expect(redisLines.some((line) => line.includes(`redis://127.0.0.1:${redis.port}`))).toBe(true);
    expect(t.log.lines.join('\n')).not.toContain(password);
  });

  it('keeps liveness at 200 and has readiness name Redis while it is down, past the fail-closed rate limit', async () => {
    const ready = async () => {
      const response = await fetch(`${t.url}/api/v1/ready`);
      return { status: response.status, body: await response.json() };
    };
    expect(await ready()).toEqual({ status: 200, body: { status: 'ok', data: { status: 'ready' } } });

    await redis.stop();
    await expect.poll(ready, { timeout: 5_000, interval: 50 })
      .toEqual({ status: 503, body: { status: 'error', error: 'Not ready: Redis is unreachable', code: 'AGENTD_NOT_READY' } });
    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
    // Everything else still fails closed, and a wrong key on a probe is still refused.
    expect(await json(await t.request('/api/v1/health'))).toMatchObject({ code: 'AGENTD_COORDINATION_UNAVAILABLE' });
    expect((await fetch(`${t.url}/api/v1/ready`, { headers: { 'x-api-key': 'wrong' } })).status).toBe(401);

    await redis.start();
    await expect.poll(async () => (await ready()).status, { timeout: 10_000, interval: 100 }).toBe(200);
  });

  it('answers 503 within the command timeout when Redis hangs', async () => {
    redis.freeze();
    const started = performance.now();
    const response = await t.request('/api/v1/health');
    expect(response.status).toBe(503);
    expect(performance.now() - started).toBeLessThan(1_000);
    redis.thaw();
    await expect.poll(async () => (await t.request('/api/v1/health')).status, { timeout: 10_000, interval: 100 }).toBe(200);
  });
});

describeWithRedis('readiness while Redis hangs (TCP open, no replies)', () => {
  let redis: PrivateRedis;
  let t: TestApp;
  beforeAll(async () => {
    redis = await PrivateRedis.start();
    t = await replica(redis.url, uniquePrefix());
  });
  afterEach(() => redis.thaw());
  afterAll(async () => {
    await t?.close();
    await redis?.stop();
  });

  const ready = async () => {
    const response = await fetch(`${t.url}/api/v1/ready`);
    return { status: response.status, body: await response.json() };
  };

  it('answers 503 AGENTD_NOT_READY naming Redis at the first probe, as the API answers 503, and ready again once it answers', async () => {
    expect(await ready()).toEqual({ status: 200, body: { status: 'ok', data: { status: 'ready' } } });
    redis.freeze();
    // The connection stays open and "ready" to ioredis: only a command shows that nothing answers.
    // No polling: the very first probe after the freeze must already say so, and probes arriving
    // together (one shared check) all get the same answer.
    const probes = await Promise.all(Array.from({ length: 5 }, ready));
    for (const probe of probes) {
      expect(probe).toEqual({ status: 503, body: { status: 'error', error: 'Not ready: Redis is unreachable', code: 'AGENTD_NOT_READY' } });
    }
    expect(await json(await t.request('/api/v1/health'))).toMatchObject({ code: 'AGENTD_COORDINATION_UNAVAILABLE' });
    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
    redis.thaw();
    await expect.poll(async () => (await ready()).status, { timeout: 10_000, interval: 100 }).toBe(200);
  });
});

describeWithRedis('a replica started while Redis is down', () => {
  let redis: PrivateRedis;
  let t: TestApp;
  afterAll(async () => {
    await t?.close();
    await redis?.stop();
  });

  it('starts, refuses with 503, and serves once Redis comes up', async () => {
    redis = await PrivateRedis.start();
    await redis.stop();
    t = await replica(redis.url, uniquePrefix());
    expect(t.log.lines.some((line) => line.includes('not reachable at start'))).toBe(true);
    expect((await t.request('/api/v1/health')).status).toBe(503);
    await redis.start();
    await expect.poll(async () => (await t.request('/api/v1/health')).status, { timeout: 10_000, interval: 100 }).toBe(200);
  });
});
