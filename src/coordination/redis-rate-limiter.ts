import type { RateDecision, RateLimiter } from '../security/rate-limit/rate-limiter.js';
import type { RedisConnection } from './redis-connection.js';

/**
 * One hit on a shared window, atomically (a script runs alone on the server). The window is the
 * in-memory limiter's, kept in a hash: one counter per second (field = the second, from the
 * server's clock so every replica agrees), at most `window` fields, summed on each hit. A counter
 * older than the window is deleted; a refused hit counts nothing (docs/api.md#rate-limits: the sliding window
 * counts served requests). The key expires a window after its last counted hit, so an idle
 * client's window disappears by itself.
 *
 * KEYS[1] the client's window; ARGV[1] limit; ARGV[2] window in seconds.
 * Returns 0 when the hit was counted, else the seconds until one would be.
 */
const HIT_SCRIPT = `
local now = tonumber(redis.call('TIME')[1])
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local oldest = now - window + 1
local fields = redis.call('HGETALL', KEYS[1])
local total = 0
local live = {}
for i = 1, #fields, 2 do
  local second = tonumber(fields[i])
  if second < oldest then
    redis.call('HDEL', KEYS[1], fields[i])
  else
    local count = tonumber(fields[i + 1])
    total = total + count
    live[#live + 1] = { second, count }
  end
end
if total >= limit then
  table.sort(live, function(a, b) return a[1] < b[1] end)
  local excess = total - limit + 1
  for _, entry in ipairs(live) do
    excess = excess - entry[2]
    if excess <= 0 then return entry[1] + window - now end
  end
  return window
end
redis.call('HINCRBY', KEYS[1], now, 1)
redis.call('EXPIRE', KEYS[1], window)
return 0
`;

const ALLOWED: RateDecision = Object.freeze({ allowed: true, retryAfterSeconds: 0 });

interface WithHitScript {
  agentdRateLimitHit(key: string, limit: number, windowSeconds: number): Promise<number>;
}

/**
 * A sliding-window rate limiter whose windows live in Redis, so every replica counts against one
 * limit per client (N allowed in total, not N per replica). `hit` rejects when Redis does not
 * answer in time; the listener then refuses the request (fail closed).
 *
 * Memory: each client's window is at most `windowSeconds` small counters and expires a window after
 * its last counted request, so Redis holds only the clients seen in the last minute.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly script: WithHitScript;

  /** `keyPrefix` names the listener (`<prefix>ratelimit:api:`), so each listener has its own windows. */
  constructor(
    private readonly connection: RedisConnection,
    private readonly keyPrefix: string,
    private readonly limit: number,
    private readonly windowSeconds = 60,
  ) {
    // Defined per client (idempotent): sent by SHA, and resent in full after a Redis restart
    // emptied the script cache.
    if (!('agentdRateLimitHit' in connection.client)) {
      connection.client.defineCommand('agentdRateLimitHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
    }
    this.script = connection.client as unknown as WithHitScript;
  }

  async hit(key: string): Promise<RateDecision> {
    let retryAfterSeconds: number;
    try {
      retryAfterSeconds = await this.script.agentdRateLimitHit(this.keyPrefix + key, this.limit, this.windowSeconds);
    } catch (error) {
      this.connection.reportFailure('a rate-limit check', error);
      throw error;
    }
    return retryAfterSeconds === 0 ? ALLOWED : { allowed: false, retryAfterSeconds };
  }
}
