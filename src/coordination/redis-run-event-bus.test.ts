import { afterEach, expect, it } from 'vitest';
import type { RunEvent } from '../storage/ports/runs.js';
import { createMemoryLogger } from '../log.js';
import { eventually } from '../../test/helpers/agent.js';
import { describeWithRedis, PrivateRedis, testRedisUrl, uniquePrefix } from '../../test/helpers/redis.js';
import { RedisCoordination } from './redis-coordination.js';

const opened: RedisCoordination[] = [];
async function replica(url: string, keyPrefix: string): Promise<RedisCoordination> {
  const coordination = new RedisCoordination({ url, log: createMemoryLogger(), keyPrefix });
  opened.push(coordination);
  await coordination.start();
  return coordination;
}

describeWithRedis('RedisRunEventBus', () => {
  afterEach(() => Promise.all(opened.splice(0).map((c) => c.close())));

  it('carries a run\'s events from one replica to another unchanged, and only while subscribed', async () => {
    const prefix = uniquePrefix();
    const [a, b] = [await replica(testRedisUrl!, prefix), await replica(testRedisUrl!, prefix)];
    const heard: RunEvent[] = [];
    const stop = await b.runEvents.subscribe('run_1', (event) => heard.push(event));
    const events: RunEvent[] = [
      { id: 1, name: 'run.start', data: '{"run_id":"run_1","session_id":"s","provider":"offline"}' },
      { id: 2, name: 'run.complete', data: '{"run_id":"run_1","response":"line one\\nline two ünïcødé"}' },
    ];
    a.runEvents.publish('run_other', { id: 1, name: 'run.start', data: '{}' });
    for (const event of events) a.runEvents.publish('run_1', event);
    await eventually(() => heard.length === 2);
    expect(heard).toEqual(events);
    stop();
    a.runEvents.publish('run_1', { id: 3, name: 'run.error', data: '{}' });
    // A replica with another prefix (another service on the same Redis) hears nothing of these.
    const stranger = await replica(testRedisUrl!, uniquePrefix());
    const strangerHeard: RunEvent[] = [];
    await stranger.runEvents.subscribe('run_1', (event) => strangerHeard.push(event));
    a.runEvents.publish('run_1', { id: 4, name: 'run.error', data: '{}' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(heard).toHaveLength(2);
    expect(strangerHeard).toEqual([]);
  });

  it('delivers a cancel request to every replica', async () => {
    const prefix = uniquePrefix();
    const [a, b] = [await replica(testRedisUrl!, prefix), await replica(testRedisUrl!, prefix)];
    const heardByA: string[] = [];
    const heardByB: string[] = [];
    a.runEvents.onCancelRequest((runId) => heardByA.push(runId));
    b.runEvents.onCancelRequest((runId) => heardByB.push(runId));
    await b.runEvents.requestCancel('run_7');
    await eventually(() => heardByA.length === 1 && heardByB.length === 1);
    expect([heardByA, heardByB]).toEqual([['run_7'], ['run_7']]);
  });

  it('while Redis is down: publishing is dropped without throwing, a cancel request rejects; back up: subscriptions are renewed and watchers told', async () => {
    const redis = await PrivateRedis.start();
    try {
      const prefix = uniquePrefix();
      const [a, b] = [await replica(redis.url, prefix), await replica(redis.url, prefix)];
      const heard: number[] = [];
      await b.runEvents.subscribe('run_1', (event) => heard.push(event.id));
      let resumed = 0;
      b.runEvents.onResume(() => resumed++);

      await redis.stop();
      await eventually(() => !a.commands.isReachable && !b.subscriber.isReachable);
      expect(() => a.runEvents.publish('run_1', { id: 1, name: 'run.start', data: '{}' })).not.toThrow();
      await expect(a.runEvents.requestCancel('run_1')).rejects.toThrow();

      await redis.start();
      await eventually(() => resumed === 1 && a.commands.isReachable, 10_000);
      a.runEvents.publish('run_1', { id: 2, name: 'run.complete', data: '{}' });
      await eventually(() => heard.length === 1);
      // The event published while Redis was down is gone from the bus (the store has it).
      expect(heard).toEqual([2]);
    } finally {
      await Promise.all(opened.splice(0).map((c) => c.close()));
      await redis.stop();
    }
  });
});
