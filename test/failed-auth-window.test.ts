import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import type { SqliteStorage } from '../src/storage/sqlite/index.js';
import { eventually } from './helpers/agent.js';
import { storedEvents } from './helpers/audit.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { describeWithRedis, testRedisUrl, uniquePrefix } from './helpers/redis.js';

/**
 * Failed authentications count in their own per-IP window: a stranger failing from the operator's
 * address (here both are 127.0.0.1) is limited and audited, and the right key still gets in, on
 * the API and through the console's login form.
 */
const LIMIT = 6;
const apps: TestApp[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

async function start(config: Record<string, unknown> = {}, redisKeyPrefix?: string): Promise<TestApp> {
  const t = await startTestApp({ ...(redisKeyPrefix ? { redisKeyPrefix } : {}), config: { api: { rate_limit_rpm: LIMIT }, ...config } });
  apps.push(t);
  return t;
}

const login = (t: TestApp, key: string) => fetch(`${t.url}/login`, {
  method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `api_key=${encodeURIComponent(key)}`,
});

/** A stranger's attempts of every kind: wrong keys, no key, an unknown cookie, a malformed header, wrong logins. */
const FAILURES: ((t: TestApp) => Promise<Response>)[] = [
  (t) => login(t, 'not-the-key'),
  (t) => fetch(`${t.url}/api/v1/status`, { headers: { authorization: 'Bearer not-the-key' } }),
  (t) => fetch(`${t.url}/api/v1/status`),
  (t) => fetch(`${t.url}/api/v1/status`, { headers: { cookie: 'service_operator_session=forged' } }),
  (t) => fetch(`${t.url}/api/v1/status`, { headers: { authorization: 'Basic abc' } }),
  (t) => fetch(`${t.url}/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'api_key=a&api_key=b' }),
];

async function strangerFails(t: TestApp, attempts: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < attempts; i++) statuses.push((await FAILURES[i % FAILURES.length]!(t)).status);
  return statuses;
}

/** The operator with the right key, on the API and through the login form, then with the session it got. */
async function operatorGetsIn(t: TestApp): Promise<void> {
  expect((await t.request('/api/v1/status')).status).toBe(200);
  const loggedIn = await login(t, t.apiKey);
  expect(loggedIn.status).toBe(303);
  expect(loggedIn.headers.get('location')).toBe('/');
  const cookie = loggedIn.headers.getSetCookie()[0]!.split(';')[0]!;
  expect((await fetch(`${t.url}/api/v1/status`, { headers: { cookie } })).status).toBe(200);
}

function expectLimited(statuses: number[]): void {
  // Within the limit each failure is refused as such (401, 303 back to the form, 400); past it, 429.
  expect(statuses.slice(0, LIMIT).every((status) => status !== 429)).toBe(true);
  expect(statuses.slice(LIMIT)).toEqual(statuses.slice(LIMIT).map(() => 429));
}

describe('failed authentications in their own per-IP window', () => {
  it('limits a stranger\'s failures (429 with Retry-After past the limit) without locking out the right key', async () => {
    const t = await start();
    const statuses = await strangerFails(t, 10 * LIMIT + 1);
    expectLimited(statuses);
    const refused = await login(t, 'still-not-the-key');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.json()).toEqual({ status: 'error', error: 'Rate limit exceeded', code: 'AGENTD_RATE_LIMITED' });
    const wrongKey = await fetch(`${t.url}/api/v1/status`, { headers: { 'x-api-key': 'guess' } });
    expect(wrongKey.status).toBe(429);

    await operatorGetsIn(t);
    // The failures were audited: the failed logins within the limit, and the refusals past it.
    const events = (type: string) => storedEvents(t.app.storage as SqliteStorage, type);
    expect(events('web.login').map((event) => event.result)).toEqual(['deny', 'allow']);
    const limited = await eventually(() => events('web.rate_limit').length > 0 && events('web.rate_limit'));
    expect(limited[0]!.detail).toMatchObject({ ip: '127.0.0.1', window: 'failed-auth' });
  });

  it('still limits the operator in its own window, and anonymous probes in theirs; a right login is in neither', async () => {
    const t = await start();
    for (let i = 0; i < LIMIT; i++) expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${t.url}/healthz`)).status).toBe(429);
    // The probes' window is not the operator's either.
    for (let i = 0; i < LIMIT; i++) expect((await t.request('/api/v1/health')).status).toBe(200);
    expect((await t.request('/api/v1/health')).status).toBe(429);
    // A right login counts in the browser's window (docs/api.md#rate-limits), not the operator's: it still gets in.
    expect((await login(t, t.apiKey)).status).toBe(303);
  });
});

describeWithRedis('failed authentications with the limiter shared between replicas', () => {
  it('count in their own window in Redis, across replicas, and the right key still gets in on both', async () => {
    const prefix = uniquePrefix();
    const config = { storage: { redis_url: testRedisUrl! } };
    const a = await start(config, prefix);
    const b = await start({ ...config, api: { rate_limit_rpm: LIMIT, api_key: a.apiKey } }, prefix);
    const statuses: number[] = [];
    for (let i = 0; i < 4 * LIMIT; i++) statuses.push((await FAILURES[i % FAILURES.length]!(i % 2 === 0 ? a : b)).status);
    expectLimited(statuses);
    await operatorGetsIn(a);
    await operatorGetsIn(b);
    const redis = new Redis(testRedisUrl!);
    try {
      const keys = await redis.keys(`${prefix}ratelimit:api:*`);
      expect(keys.sort()).toEqual([`${prefix}ratelimit:api:127.0.0.1`, `${prefix}ratelimit:api:auth-fail:127.0.0.1`]);
      // The logins with the right key counted in the browser's window, shared too.
      expect(await redis.keys(`${prefix}ratelimit:console:*`)).toEqual([`${prefix}ratelimit:console:web:127.0.0.1`]);
    } finally {
      redis.disconnect();
    }
  });
});
