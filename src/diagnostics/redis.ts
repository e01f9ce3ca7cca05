import type { RedisHealth } from '../coordination/redis-health.js';
import type { Check } from './types.js';

/** Above this a PING is slow: request-path commands time out at 250 ms. */
export const SLOW_REDIS_MS = 50;

/** The Redis replicas share (only when `storage.redis_url` is set). */
export function redisCheck(health: RedisHealth): Check {
  const remedy = `start Redis at ${health.target}, or correct storage.redis_url / REDIS_URL`;
  if (!health.reachable) {
    return {
      name: 'redis', status: 'error',
      summary: `Redis at ${health.target} is unreachable (${health.error ?? 'no answer'}): rate-limited requests are refused with 503`,
      remediation: remedy,
    };
  }
  const summary = `Redis ${health.version ?? '(version unknown)'} at ${health.target}, PING ${health.latencyMs} ms`;
  if ((health.latencyMs ?? 0) > SLOW_REDIS_MS) {
    return { name: 'redis', status: 'warn', summary: `${summary}: slow`, remediation: 'run Redis close to the replicas: each request waits for its rate-limit window' };
  }
  return { name: 'redis', status: 'ok', summary };
}
