import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeLlmServer } from './fakes/fake-llm-server.js';
import { startFakeOpenAI } from './fakes/openai-server.js';
import { verifyAudit } from './crash/cycle.js';
import { REPLICA_STOPPED } from '../src/runs/session-leases.js';
import { eventually, parseSse } from './helpers/agent.js';
import { createTestDatabase, postgresTestUrl, type TestDatabase } from './helpers/postgres.js';
import { PrivateRedis, testRedisUrl } from './helpers/redis.js';
import { ReplicaSet } from './helpers/serve-replicas.js';

/**
 * Three `agentd serve` processes on one PostgreSQL database and one Redis, driven round-robin:
 * what a client does on one replica is seen, consistent and enforced on the others. The Redis is
 * the test's own (`PrivateRedis`), so stopping it touches nobody else and no key outlives the file.
 */
const RATE_LIMIT = 30;
const [A, B, C] = [0, 1, 2] as const;

describe.skipIf(postgresTestUrl === null || testRedisUrl === undefined)('three agentd serve replicas on PostgreSQL and Redis', () => {
  let database: TestDatabase;
  let redis: PrivateRedis;
  let upstream: FakeLlmServer;
  let replicas: ReplicaSet;

  beforeAll(async () => {
    database = await createTestDatabase();
    redis = await PrivateRedis.start();
    upstream = await startFakeOpenAI();
    replicas = await ReplicaSet.start({ count: 3, postgresUrl: database.url, redisUrl: redis.url, upstream, rateLimitRpm: RATE_LIMIT });
  }, 60_000);
  afterAll(async () => {
    await replicas?.close();
    await upstream?.close();
    await redis?.stop();
    await database?.drop();
  }, 30_000);

  /** The frames of a run's stream on `index`, read to its end. */
  const streamed = async (index: number, runId: string, lastEventId?: number) => parseSse(await (await replicas.events(index, runId, lastEventId)).ended());
  const terminals = (events: { event: string | undefined }[]) => events.filter((e) => /^run\.(complete|error|cancelled)$/.test(e.event ?? ''));

  it('streams a run started on A from B and C (same ids, Last-Event-ID replay, one terminal event)', async () => {
    // The model asks for a calculation, then takes 1.5 s to answer: the viewers attach mid-run.
    upstream.enqueue({ toolCalls: [{ name: 'calculator', arguments: { expression: '6*7' } }] }, { text: 'It is 42.', delayMs: 1_500 });
    const started = await replicas.post(A, '/api/v1/runs', { message: 'what is six times seven?' });
    expect(started.status).toBe(202);
    const runId = started.body.data.run_id as string;
    const onB = await replicas.events(B, runId);
    await onB.waitFor((body) => body.includes('event: tool.result'));
    expect(onB.body()).not.toContain('event: run.complete'); // attached while the run was in flight
    const resumedOnC = await replicas.events(C, runId, 2);
    const [fromB, fromC] = [parseSse(await onB.ended()), parseSse(await resumedOnC.ended())];

    expect(fromB.map((e) => [e.id, e.event])).toEqual([['1', 'run.start'], ['2', 'tool.request'], ['3', 'tool.result'], ['4', 'run.complete']]);
    expect(JSON.parse(fromB[3]!.data)).toMatchObject({ run_id: runId, response: 'It is 42.', tools_used: ['calculator'] });
    expect(fromC).toEqual(fromB.slice(2));
    // Once finished, A (where it ran) replays exactly what B delivered live.
    expect(await streamed(A, runId)).toEqual(fromB);
    expect(terminals(fromB)).toHaveLength(1);
  });

  it('streams the answer of a run on A to a viewer on B with include=deltas, over Redis, before the end', async () => {
    const text = Array.from({ length: 30 }, (_, i) => `piece${i}`).join(' ');
    // The answer starts after a pause, so B is watching before the first piece.
    upstream.enqueue({ text, delayMs: 500, chunkDelayMs: 25 });
    const started = await replicas.post(A, '/api/v1/runs', { message: 'stream it' });
    expect(started.status).toBe(202);
    const runId = started.body.data.run_id as string;
    const onB = await replicas.events(B, runId, undefined, '?include=deltas');
    await onB.waitFor((body) => body.includes('event: run.delta'));
    // A piece arrived while the answer was still being written.
    expect(onB.body()).not.toContain('event: run.complete');
    const events = parseSse(await onB.ended());
    const pieces = events.filter((e) => e.event === 'run.delta');
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.every((e) => e.id === undefined)).toBe(true);
    const complete = events.find((e) => e.event === 'run.complete')!;
    expect(pieces.map((e) => JSON.parse(e.data).text).join('')).toBe(text);
    expect(JSON.parse(complete.data).response).toBe(text);
    expect(events.at(-1)!.event).toBe('run.complete');
    // Stored events keep their ids; the live ones took none.
    expect(events.filter((e) => e.id !== undefined).map((e) => e.id)).toEqual(['1', '2']);
  });

  it('cancels from C a run started on A and watched on B', async () => {
    upstream.enqueue({ text: 'too late', delayMs: 20_000 });
    const runId = (await replicas.post(A, '/api/v1/runs', { message: 'take your time' })).body.data.run_id as string;
    const onB = await replicas.events(B, runId);
    await onB.waitFor((body) => body.includes('event: run.start'));
    const cancelled = await replicas.post(C, `/api/v1/runs/${runId}/cancel`, {});
    expect(cancelled).toMatchObject({ status: 202, body: { data: { run_id: runId, status: 'cancelled' } } });
    const events = parseSse(await onB.ended());
    expect(events.map((e) => e.event)).toEqual(['run.start', 'run.cancelled']);
    expect((await replicas.json(A, `/api/v1/runs/${runId}`)).body.data.status).toBe('cancelled');
    expect((await replicas.post(B, `/api/v1/runs/${runId}/cancel`, {})).body.code).toBe('AGENTD_RUN_FINISHED');
  });

  it('uses on B a session created on A, and finds on C the turns stored through A', async () => {
    const word = `zeppelin${Date.now()}`;
    const session = (await replicas.post(A, '/api/v1/sessions', { name: 'shared' })).body.data;
    expect((await replicas.post(B, '/api/v1/chat', { session_id: session.id, message: `remember ${word}` })).status).toBe(200);
    expect((await replicas.post(A, '/api/v1/chat', { session_id: session.id, message: `and ${word} again` })).status).toBe(200);
    expect((await replicas.json(C, `/api/v1/sessions/${session.id}`)).body.data).toMatchObject({ id: session.id, name: 'shared', turn_count: 4 });
    const found = (await replicas.json(C, `/api/v1/memory/search?q=${word}`)).body.data.results.map((r: { content: string }) => r.content);
    expect(found.sort()).toEqual([`and ${word} again`, `remember ${word}`]);
  });
  it('fires a job created on A once per occurrence across the three replicas, and pauses it from B', async () => {
    const created = await replicas.post(A, '/api/v1/scheduler/jobs', { name: 'tick', schedule: 'every 2 seconds', task: 'what is 2+2?', provider: 'offline' });
    expect(created.status).toBe(201);
    const { id, created_at: createdAt } = created.body.data as { id: string; created_at: string };
    const job = async (index: number) => (await replicas.json(index, '/api/v1/scheduler/jobs')).body.data.jobs.find((j: { id: string }) => j.id === id);
    const runs = async (index: number) => (await replicas.json(index, `/api/v1/runs?session_id=job:${id}&limit=100`)).body.data.runs as { created_at: string }[];
    await eventually(async () => (await job(C)).run_count >= 3, 15_000);

    const paused = await replicas.post(B, '/api/v1/controls/scheduler.pause_job', { target: id, confirm: `pause-job:${id}` });
    expect(paused.status).toBe(200);
    const pausedAt = Date.now();
    const atPause = await job(A);
    expect(atPause.state).toBe('paused');
    // One run per fire, and no more fires than occurrences (one every 2 s): replicas firing the same
    // occurrence would make runs milliseconds apart (they all wake when it falls due). A fire late
    // on a busy machine brings the next one closer, hence half the interval as the bound.
    await eventually(async () => (await runs(C)).length === atPause.run_count);
    expect(atPause.run_count).toBeLessThanOrEqual(Math.floor((pausedAt - Date.parse(createdAt)) / 2_000) + 1);
    const times = (await runs(C)).map((r) => Date.parse(r.created_at)).sort((x, y) => x - y);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThan(500);
    // Paused for every replica: no fire in the next two occurrences.
    await sleep(4_500);
    expect((await job(C)).run_count).toBe(atPause.run_count);
    expect(await runs(B)).toHaveLength(atPause.run_count);
  }, 30_000);

  it('holds one rate limit for the whole service: N requests a minute from a client across the replicas, not 3N', async () => {
    const ip = '192.0.2.77';
    const statuses: number[] = [];
    for (let i = 0; i < RATE_LIMIT * 2; i++) statuses.push((await replicas.request(i % replicas.size, '/api/v1/health', { ip })).status);
    expect(statuses.slice(0, RATE_LIMIT)).toEqual(Array(RATE_LIMIT).fill(200));
    expect(statuses.slice(RATE_LIMIT)).toEqual(Array(RATE_LIMIT).fill(429));
  });

  it('fails closed on every replica while Redis is down (503 AGENTD_COORDINATION_UNAVAILABLE), recovers when it returns, loses nothing stored', async () => {
    const acknowledged: string[] = [];
    const statuses = new Set<number>();
    let writing = true;
    // Sessions created round-robin all along; only a 201 promises the session is stored.
    const writer = (async () => {
      for (let n = 0; writing; n++) {
        const answer = await replicas.post(n % replicas.size, '/api/v1/sessions', { name: `load ${n}` });
        statuses.add(answer.status);
        if (answer.status === 201) acknowledged.push(answer.body.data.id);
        await sleep(10);
      }
    })();
    await eventually(() => acknowledged.length >= 10);
    await redis.stop();
    const refused = (index: number) => async () => {
      const answer = await replicas.json(index, '/api/v1/sessions');
      return answer.status === 503 && answer.body.code === 'AGENTD_COORDINATION_UNAVAILABLE' && answer.body.status === 'error';
    };
    for (const index of [A, B, C]) await eventually(refused(index));
    const beforeRestart = acknowledged.length;
    await sleep(300);
    // Still refused everywhere, and no write was acknowledged meanwhile.
    for (const index of [A, B, C]) expect(await refused(index)()).toBe(true);

    await redis.start();
    for (const index of [A, B, C]) await eventually(async () => (await replicas.request(index, '/api/v1/health')).status === 200);
    await eventually(() => acknowledged.length >= beforeRestart + 10);
    writing = false;
    await writer;
    expect([...statuses].sort()).toEqual([201, 503]);
    for (const [n, id] of acknowledged.entries()) expect((await replicas.json(n % replicas.size, `/api/v1/sessions/${id}`)).status).toBe(200);
  }, 30_000);

  it('keeps one audit chain for the whole service, written by all three replicas at once: agentd audit verify passes', async () => {
    const total = async () => (await replicas.json(B, '/api/v1/audit?limit=1')).body.data.total as number;
    const before = await total();
    // Wrong keys from fresh addresses, all replicas at once: each refusal is one audited event.
    const refusals = await Promise.all(Array.from({ length: 60 }, (_, n) =>
      replicas.request(n % replicas.size, '/api/v1/health', { headers: { authorization: 'Bearer not-the-key' } })));
    expect(refusals.map((r) => r.status)).toEqual(Array(60).fill(401));
    await eventually(async () => (await total()) === before + 60, 30_000);
    const { status, output } = verifyAudit(replicas.homes[C]!);
    expect(output.trim()).toBe(`audit chain ok: ${before + 60} events verified`);
    expect(status).toBe(0);

    // Each replica lists it in chain order (newest first): every event's prev_hash is the hash of
    // the one listed after it, across page boundaries too, though three clocks stamped the events.
    for (const index of [A, B, C]) {
      const listed: { prev_hash: string; hash: string }[] = [];
      for (let offset = 0; offset < before + 60; offset += 50) {
        listed.push(...(await replicas.json(index, `/api/v1/audit?limit=50&offset=${offset}`)).body.data.events);
      }
      expect(listed).toHaveLength(before + 60);
      const breaks = listed.slice(0, -1).filter((event, n) => event.prev_hash !== listed[n + 1]!.hash);
      expect(breaks).toEqual([]);
    }
  }, 60_000);

  it('runs every webhook message once, also those a replica accepted just before it was killed', async () => {
    // Runs take a second, so the replica dies holding messages it accepted and claimed but did not run.
    upstream.setDelay(1_000);
    const tag = Date.now();
    const messages = Array.from({ length: 9 }, (_, n) => ({ replica: n % 3, sender: `sender${n % 3}-${tag}`, prompt: `message ${n} of ${tag}` }));
    for (const m of messages) expect(await replicas.webhook(m.replica, m.sender, m.prompt)).toBe(202);
    await replicas.kill(C);

    const runsBySender = async () => {
      const out = new Map<string, { message: string; status: string }[]>();
      for (const sender of new Set(messages.map((m) => m.sender))) {
        out.set(sender, (await replicas.json(A, `/api/v1/runs?session_id=webhook:${encodeURIComponent(sender)}`)).body.data.runs);
      }
      return out;
    };
    const ranOf = (runs: Map<string, { message: string; status: string }[]>, m: (typeof messages)[number]) =>
      runs.get(m.sender)!.filter((run) => run.message === m.prompt);
    // C's liveness key lapses within 3 s and A or B judge it stopped: its claims are freed then (not
    // after the 20 s lease), and they take its messages, in order. Each run takes 1 s, three per sender.
    const killedAt = Date.now();
    const runs = await eventually(async () => {
      const seen = await runsBySender();
      const waiting = messages.filter((m, n) => ranOf(seen, m).every((run) => run.status !== 'complete') && n !== C);
      // The run C had in flight (if any) is ended too, not left running.
      return waiting.length === 0 && ranOf(seen, messages[C]!).every((run) => run.status !== 'running') && seen;
    }, 15_000);
    process.stdout.write(`three replicas, kill -9 of C: its webhook messages all ran ${Date.now() - killedAt} ms after the kill\n`);
    for (const m of messages) expect(ranOf(runs, m), m.prompt).toHaveLength(1);
    // The one run C had in flight when it died is ended as interrupted (no replica takes over a run).
    const unfinished = messages.filter((m) => ranOf(runs, m)[0]!.status !== 'complete');
    expect(unfinished.map((m) => m.prompt)).toEqual(unfinished.length === 0 ? [] : [messages[C]!.prompt]);
    for (const m of unfinished) expect(ranOf(runs, m)[0]).toMatchObject({ status: 'error', error: REPLICA_STOPPED });
  }, 30_000);

  it('still has one whole audit chain after a replica was killed during the load', () => {
    const { status, output } = verifyAudit(replicas.homes[A]!);
    expect(output).toMatch(/^audit chain ok: \d+ events verified$/m);
    expect(status).toBe(0);
  });
});
