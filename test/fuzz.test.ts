import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, writeCrashConfig, type Served } from './crash/cycle.js';
import { fuzz, type FuzzStats } from './fuzz/fuzz.js';
import { Pools } from './fuzz/pools.js';
import { restRequest } from './fuzz/rest-requests.js';
import { CONSOLE_ROUTES, routesFromOpenApi } from './fuzz/routes.js';
import { webhookRequest } from './fuzz/webhook-requests.js';

/**
 * Property-based fuzzing of both listeners of a real `agentd serve` (built dist, temporary home,
 * API key and webhook secret set) over real HTTP. `npm test` uses one fixed seed, so its verdict is
 * the same on every run; AGENTD_FUZZ_SEED picks another (`random` draws one), AGENTD_FUZZ_REQUESTS
 * sets how many requests (three quarters to the API, the rest to the webhook). A failure prints
 * the seed and the offending requests.
 */
const DEFAULT_SEED = 20_261_126;
const SEED = seedOf(process.env.AGENTD_FUZZ_SEED);
const REQUESTS = Number(process.env.AGENTD_FUZZ_REQUESTS ?? 20_000);
const DEADLINE_MS = 2_000;

let home: string;
let served: Served;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'agentd-fuzz-'));
  // Limits high enough that the generated requests reach authentication, parsing and the handlers
  // instead of being 429s after the first minute's worth.
  writeCrashConfig(home, { rateLimitRpm: 1_000_000, webhookRateLimitRpm: 1_000_000 });
  served = await serve(home);
});

afterAll(async () => {
  served?.child.kill('SIGTERM');
  await served?.exited;
  rmSync(home, { recursive: true, force: true });
});

function summary(name: string, stats: FuzzStats): string {
  const statuses = [...stats.statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`).join(' ');
  return `${name}: ${stats.sent} requests; ${statuses}; slowest ${Math.round(stats.slowestMs)} ms: ${stats.slowest}`;
}

describe('fuzzing the REST API and the webhook', () => {
  it(`answers every generated request in time with headers and envelope, never a 5xx but 503 (seed ${SEED})`, async () => {
    const { api, webhook, apiKey, secret } = served.target;
    const openapi = await fetch(`${api}/api/v1/openapi.json`, { headers: { authorization: `Bearer ${apiKey}` } });
    const routes = [...routesFromOpenApi((await openapi.json()) as Parameters<typeof routesFromOpenApi>[0]), ...CONSOLE_ROUTES];
    const apiUrl = new URL(api);
    const webhookUrl = new URL(webhook);
    const restCount = Math.ceil((REQUESTS * 3) / 4);
    const common = { deadlineMs: DEADLINE_MS, concurrency: 8 };
    try {
      const [rest, hook] = await Promise.all([
        fuzz('rest', apiUrl, restRequest(routes, apiKey, apiUrl.host), new Pools(), { ...common, seed: SEED, requests: restCount }),
        fuzz('webhook', webhookUrl, webhookRequest(secret, webhookUrl.host), new Pools(), { ...common, seed: SEED + 1, requests: REQUESTS - restCount }),
      ]);
      process.stderr.write(`fuzz seed ${SEED}\n  ${summary('rest', rest)}\n  ${summary('webhook', hook)}\n`);
      expect(rest.sent + hook.sent).toBeGreaterThanOrEqual(REQUESTS);
    } catch (error) {
      const log = served.output().split('\n').filter((line) => !line.includes('"msg":"request"')).slice(-30).join('\n');
      process.stderr.write(`\nfuzz failed: reproduce with AGENTD_FUZZ_SEED=${SEED} AGENTD_FUZZ_REQUESTS=${REQUESTS}\nthe service's last log lines:\n${log}\n`);
      throw error;
    }
    // Still up, and still serving.
    expect(served.child.exitCode).toBeNull();
    const health = await fetch(`${api}/api/v1/health`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', data: { status: 'healthy' } });
  }, 600_000);
});

function seedOf(setting: string | undefined): number {
  if (setting === undefined || setting === '') return DEFAULT_SEED;
  if (setting === 'random') return Math.floor(Math.random() * 2 ** 31);
  const seed = Number(setting);
  if (!Number.isSafeInteger(seed)) throw new Error(`AGENTD_FUZZ_SEED must be an integer or "random", not ${JSON.stringify(setting)}`);
  return seed;
}
