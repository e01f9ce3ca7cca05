import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InProcessRunEventBus, type RunEventBus } from '../src/runs/run-event-bus.js';
import type { RunRegistry } from '../src/runs/run-registry.js';
import { RedisCoordination } from '../src/coordination/redis-coordination.js';
import { createMemoryLogger } from '../src/log.js';
import type { SqliteStorage } from '../src/storage/sqlite/index.js';
import { eventually } from './helpers/agent.js';
import { describeWithRedis, PrivateRedis, testRedisUrl, uniquePrefix } from './helpers/redis.js';
import { GatedProvider, RecordingViewer, replicasOn } from './helpers/replicas.js';
import { memoryStorage } from './helpers/storage.js';

/**
 * A run executing on replica A, watched and cancelled from replica B, the two sharing one run
 * store and a bus, as two `agentd serve` on one shared database would. Run on the in-process bus
 * (always) and on Redis pub/sub (with a test Redis).
 */
interface Buses {
  buses: RunEventBus[];
  close(): Promise<void>;
}

async function redisBuses(url: string): Promise<Buses & { coordinations: RedisCoordination[] }> {
  const keyPrefix = uniquePrefix();
  const coordinations = [0, 1].map(() => new RedisCoordination({ url, log: createMemoryLogger(), keyPrefix }));
  await Promise.all(coordinations.map((c) => c.start()));
  return { coordinations, buses: coordinations.map((c) => c.runEvents), close: async () => void (await Promise.all(coordinations.map((c) => c.close()))) };
}

/** Starts a run on `a` and waits until its first three events (start, tool request and result) are committed. */
async function runHeldOn(a: RunRegistry, storage: SqliteStorage, provider: GatedProvider, sessionId = 'ses_shared') {
  const run = await a.start({ sessionId, origin: 'api', source: 'api', message: 'six times seven?', provider, requestedProvider: null });
  await eventually(async () => (await storage.runs.events(run.run_id, 0)).length === 3);
  return run;
}

function crossReplicaSuite(makeBuses: () => Promise<Buses>): void {
  let storage: SqliteStorage;
  let a: RunRegistry;
  let b: RunRegistry;
  let buses: Buses;
  const providers: GatedProvider[] = [];
  const held = () => {
    const provider = new GatedProvider();
    providers.push(provider);
    return provider;
  };
  beforeEach(async () => {
    storage = memoryStorage();
    buses = await makeBuses();
    [a, b] = replicasOn(storage, buses.buses) as [RunRegistry, RunRegistry];
  });
  afterEach(async () => {
    for (const provider of providers.splice(0)) provider.answer();
    await Promise.all([a.close(), b.close()]);
    await buses.close();
  });

  it('streams a run executing on A to viewers on B: the replay, then live events, one terminal event', async () => {
    const provider = held();
    const run = await runHeldOn(a, storage, provider);
    const viewer = new RecordingViewer();
    const watch = await b.watch(run.run_id, 0, viewer);
    expect(watch.found && !watch.finished && watch.replay.map((event) => event.name)).toEqual(['run.start', 'tool.request', 'tool.result']);
    // A client resuming with Last-Event-ID 2 gets only what came after it.
    const resumed = new RecordingViewer();
    const resumedWatch = await b.watch(run.run_id, 2, resumed);
    expect(resumedWatch.found && resumedWatch.replay.map((event) => event.id)).toEqual([3]);

    provider.answer();
    await Promise.all([viewer.whenEnded, resumed.whenEnded]);
    for (const v of [viewer, resumed]) {
      expect(v.names).toEqual(['run.complete']);
      expect(v.ids).toEqual([4]);
      expect(v.ends).toBe(1);
    }
    expect(JSON.parse(viewer.events[0]!.data)).toMatchObject({ run_id: run.run_id, response: 'the answer is 42' });
    // Finished: B replays the stored log and ends, as for its own runs.
    const late = await b.watch(run.run_id, 0, new RecordingViewer());
    expect(late.found && late.finished && late.replay.map((event) => event.id)).toEqual([1, 2, 3, 4]);
  });

  it('cancels from B a run executing on A: A ends it as cancelled, B answers with the cancelled run', async () => {
    const provider = held();
    const run = await runHeldOn(a, storage, provider);
    const viewer = new RecordingViewer();
    await b.watch(run.run_id, 3, viewer);
    const cancelled = await b.cancel(run.run_id);
    expect(cancelled).toMatchObject({ run_id: run.run_id, status: 'cancelled' });
    expect((await a.get(run.run_id))?.status).toBe('cancelled');
    await viewer.whenEnded;
    expect(viewer.names).toEqual(['run.cancelled']);
    await expect(b.cancel(run.run_id)).rejects.toMatchObject({ code: 'run_finished' });
    await expect(b.cancel('run_nobody_has')).rejects.toMatchObject({ code: 'run_not_found' });
    expect(await b.watch('run_nobody_has', 0, new RecordingViewer())).toEqual({ found: false });
  });

  it('stops listening for a run once its last viewer here has left', async () => {
    const provider = held();
    const run = await runHeldOn(a, storage, provider);
    const bus = buses.buses[1] as unknown as { subscribedRuns: number };
    const before = bus.subscribedRuns;
    const first = await b.watch(run.run_id, 0, new RecordingViewer());
    const second = await b.watch(run.run_id, 0, new RecordingViewer());
    expect(bus.subscribedRuns).toBe(before + 1);
    if (first.found) first.stop();
    expect(bus.subscribedRuns).toBe(before + 1);
    if (second.found) second.stop();
    expect(bus.subscribedRuns).toBe(before);
  });
}

describe('a run on one replica, watched and cancelled from another (in-process bus)', () => {
  crossReplicaSuite(async () => {
    const bus = new InProcessRunEventBus();
    return { buses: [bus, bus], close: async () => {} };
  });
});

describeWithRedis('a run on one replica, watched and cancelled from another (Redis pub/sub)', () => {
  crossReplicaSuite(() => redisBuses(testRedisUrl!));
});

describeWithRedis('the run-event bus while Redis is down', () => {
  let redis: PrivateRedis;
  let storage: SqliteStorage;
  let a: RunRegistry;
  let b: RunRegistry;
  let buses: Awaited<ReturnType<typeof redisBuses>>;
  const providers: GatedProvider[] = [];
  beforeEach(async () => {
    redis = await PrivateRedis.start();
    storage = memoryStorage();
    buses = await redisBuses(redis.url);
    [a, b] = replicasOn(storage, buses.buses) as [RunRegistry, RunRegistry];
  });
  afterEach(async () => {
    for (const provider of providers.splice(0)) provider.answer();
    await Promise.all([a.close(), b.close()]);
    await buses.close();
    await redis.stop();
  });

  it('viewers on B still get every event from the store, the run on A goes on, and live delivery resumes with Redis', async () => {
    const provider = new GatedProvider();
    providers.push(provider);
    const run = await runHeldOn(a, storage, provider);
    const viewer = new RecordingViewer();
    await b.watch(run.run_id, 0, viewer);

    await redis.stop();
    await eventually(() => !buses.coordinations[0]!.commands.isReachable);
    // The cancel cannot reach A: refused (503), not pretended.
    await expect(b.cancel(run.run_id)).rejects.toMatchObject({ code: 'coordination_unavailable' });
    // A's publish of the terminal event fails and is dropped; B reads it from the store.
    provider.answer();
    await viewer.whenEnded;
    expect(viewer.names).toEqual(['run.complete']);
    expect(viewer.ends).toBe(1);
    expect((await storage.runs.get(run.run_id))?.status).toBe('complete');

    await redis.start();
    await eventually(() => buses.coordinations.every((c) => c.subscriber.isReachable && c.commands.isReachable));
    const next = new GatedProvider();
    providers.push(next);
    const second = await runHeldOn(a, storage, next, 'ses_other');
    const cancelled = await b.cancel(second.run_id);
    expect(cancelled.status).toBe('cancelled');
  });
});
