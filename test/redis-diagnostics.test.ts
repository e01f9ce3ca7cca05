import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Check, DiagnosticsReport } from '../src/diagnostics/index.js';
import { doctorReport } from '../src/doctor.js';
import { json } from './helpers/agent.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { describeWithRedis, PrivateRedis, uniquePrefix } from './helpers/redis.js';

const redisCheck = (report: DiagnosticsReport): Check | undefined =>
  report.sections.find((section) => section.key === 'runtime')?.checks.find((check) => check.name === 'redis');

describeWithRedis('diagnostics of the shared Redis', () => {
  const password = 'diag-pass-51c0';
  let redis: PrivateRedis;
  let t: TestApp;
  let home: string;
  beforeAll(async () => {
    redis = await PrivateRedis.start({ password });
    t = await startTestApp({ redisKeyPrefix: uniquePrefix(), config: { storage: { redis_url: `${redis.url}/0` } } });
    home = mkdtempSync(join(tmpdir(), 'agentd-doctor-'));
    writeFileSync(join(home, 'config.yaml'), `api:\n  api_key: k\nstorage:\n  redis_url: ${redis.url}/0\n`, { mode: 0o600 });
  });
  afterAll(async () => {
    await t?.close();
    await redis?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('GET /api/v1/diagnostics and agentd doctor report the version and latency, never the password; doctor an error while it is down', async () => {
    const target = `redis://127.0.0.1:${redis.port}/0`;
    const doctor = () => doctorReport({ home, env: {} });

    const response = await t.request('/api/v1/diagnostics');
    const text = await response.text();
    expect(text).not.toContain(password);
    const healthy = { status: 'ok', summary: expect.stringMatching(new RegExp(`^Redis 7\\.\\d+\\.\\d+ at ${target.replace(/[.]/g, '\\.')}, PING \\d+(\\.\\d)? ms$`)) };
    expect(redisCheck((JSON.parse(text) as { data: DiagnosticsReport }).data)).toMatchObject(healthy);
    const offline = await doctor();
    expect(offline.source).toBe('offline');
    expect(redisCheck(offline.report)).toMatchObject(healthy);

    // Down: the API fails closed, diagnostics included (they are rate limited like everything);
    // agentd doctor then reports from the files, and probes Redis itself.
    await redis.stop();
    expect((await json(await t.request('/api/v1/diagnostics'))).code).toBe('AGENTD_COORDINATION_UNAVAILABLE');
    const down = await doctor();
    expect(redisCheck(down.report)).toMatchObject({ status: 'error', remediation: `start Redis at ${target}, or correct storage.redis_url / REDIS_URL` });
    expect(down.report.overall).toBe('error');
    expect(JSON.stringify(down)).not.toContain(password);
    await redis.start();
  });
});
