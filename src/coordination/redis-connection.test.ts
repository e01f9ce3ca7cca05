import { expect, it } from 'vitest';
import { MAX_RECONNECT_DELAY_MS, reconnectDelay } from './redis-connection.js';

it('backs off from about 100 ms, doubling, to at most the cap plus jitter, however long Redis stays away', () => {
  const delays = (attempt: number) => Array.from({ length: 50 }, () => reconnectDelay(attempt));
  const range = (attempt: number) => [Math.min(...delays(attempt)), Math.max(...delays(attempt))];
  const within = (low: number) => [expect.toSatisfy((d: number) => d >= low), expect.toSatisfy((d: number) => d < low + 100)];
  expect(range(1)).toEqual(within(100));
  expect(range(3)).toEqual(within(400));
  for (const attempt of [6, 100, 1_000_000]) expect(range(attempt)).toEqual(within(MAX_RECONNECT_DELAY_MS));
  // Jittered: replicas that lost Redis together do not all knock at the same instant.
  expect(new Set(delays(100)).size).toBeGreaterThan(1);
});
