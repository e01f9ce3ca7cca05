import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { JobRecord } from '../src/scheduler/index.js';
import { STALE_CLAIM_MS } from '../src/scheduler/index.js';
import type { ToolDefinition } from '../src/tools/index.js';
import { eventually } from './helpers/agent.js';
import { schedulerHarness, TestClock, type SchedulerHarness, type SchedulerHarnessOptions } from './helpers/scheduler.js';

const T0 = '2026-01-05T12:00:00.000Z';
const MINUTE = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

const dirs: string[] = [];
const open: SchedulerHarness[] = [];
afterEach(async () => {
  for (const harness of open.splice(0).reverse()) await harness.close().catch(() => undefined);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentd-scheduler-'));
  dirs.push(dir);
  return join(dir, 'agentd.db');
}

async function harness(options: SchedulerHarnessOptions): Promise<SchedulerHarness> {
  const h = await schedulerHarness(options);
  open.push(h);
  return h;
}

/** Closes `h` as the app does and forgets it (the test opens the same file again). */
async function restart(h: SchedulerHarness): Promise<void> {
  open.splice(open.indexOf(h), 1);
  await h.close();
}

/** The job once its most recent fire has settled (its run ended and was recorded). */
async function settled(h: SchedulerHarness, id: string): Promise<JobRecord> {
  return eventually(async () => {
    const job = await h.scheduler.get(id);
    return job && job.last_status !== 'starting' && job.last_status !== 'running' ? job : undefined;
  });
}

/** A `current_time` tool that blocks until released, so a run stays in flight. */
function blockingClock(): { tool: ToolDefinition; started: () => Promise<void>; release(): void } {
  let release!: () => void;
  let started!: () => void;
  let whenStarted = new Promise<void>((resolve) => (started = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  return {
    tool: {
      name: 'current_time', description: 'blocks', schema: { type: 'object', properties: {} },
      run: async () => {
        started();
        await released;
        return 'utc: 2026-01-05T12:00:00Z';
      },
    },
    started: async () => {
      await whenStarted;
      whenStarted = new Promise<void>((resolve) => (started = resolve));
    },
    release,
  };
}

describe('the job runner', () => {
  it('fires a real run on the job\'s session when it falls due, and records it on the job and in the audit trail', async () => {
    const clock = new TestClock(Date.parse(T0));
    const h = await harness({ file: tempFile(), clock });
    const job = await h.scheduler.create({ name: 'sum', schedule: 'every 1 minutes', task: 'what is 2+2?' });
    expect(job.next_run_at).toBe(iso(clock.ms + MINUTE));

    clock.advance(MINUTE - 1);
    await h.scheduler.runner.tick();
    expect(await h.agent.listRuns(`job:${job.id}`, 10)).toEqual([]);

    clock.advance(1);
    await h.scheduler.runner.tick();
    const fired = await settled(h, job.id);
    expect(fired).toMatchObject({
      last_status: 'complete', last_run_at: iso(clock.ms), run_count: 1, missed: 0, skipped: 0, next_run_at: iso(clock.ms + MINUTE),
    });
    const run = await h.agent.getRun(fired.last_run_id!);
    expect(run).toMatchObject({ session_id: `job:${job.id}`, status: 'complete', message: 'what is 2+2?', resolved_provider: 'offline' });
    expect(run!.response).toContain('4');
    expect(run!.tools_used).toEqual(['calculator']);
    const turns = await h.storage.turns.history(`job:${job.id}`, 10);
    expect(turns.map((turn) => turn.role)).toEqual(['user', 'assistant']);
    expect(h.events('scheduler.job.fire').map((e) => e.detail)).toEqual([
      { job_id: job.id, job_name: 'sum', run_id: run!.run_id, scheduled_for: iso(clock.ms), provider: 'offline' },
    ]);
    expect(h.events('scheduler.job.complete').map((e) => [e.session_id, e.task_id, e.detail.run_id])).toEqual([[`job:${job.id}`, job.id, run!.run_id]]);
    expect(h.events('scheduler.job.create')).toHaveLength(1);
  });

  it('commits a fire\'s audit event before the job counts its run, also with the audit log on another database', async () => {
    const clock = new TestClock(Date.parse(T0));
    const h = await harness({ file: tempFile(), auditFile: tempFile(), clock });
    const job = await h.scheduler.create({ name: 'sum', schedule: 'every 1 minutes', task: 'what is 2+2?' });
    // What the trail holds at the moment the job's count moves (observed, not replaced).
    const seenAtCount: string[][] = [];
    const settle = h.storage.jobs.settle.bind(h.storage.jobs);
    h.storage.jobs.settle = async (id, runId, outcome) => {
      if (outcome.status === 'running') seenAtCount.push(h.events('scheduler.job.fire').map((e) => String(e.detail.run_id)));
      return settle(id, runId, outcome);
    };
    clock.advance(MINUTE);
    await h.scheduler.runner.tick();
    const fired = await settled(h, job.id);
    expect(fired.run_count).toBe(1);
    expect(seenAtCount).toEqual([[fired.last_run_id]]);
  });

  it('skips a fire while the job\'s previous run is still in flight, and fires again once it has ended', async () => {
    const clock = new TestClock(Date.parse(T0));
    const blocking = blockingClock();
    const h = await harness({ file: tempFile(), clock, tools: [blocking.tool] });
    const job = await h.scheduler.create({ name: 'slow', schedule: 'every 1 minutes', task: 'what time is it?' });

    clock.advance(MINUTE);
    await h.scheduler.runner.tick();
    await blocking.started();
    clock.advance(MINUTE);
    await h.scheduler.runner.tick();
    expect(await h.scheduler.get(job.id)).toMatchObject({
      last_status: 'running', run_count: 1, skipped: 1, last_skip_reason: 'in_flight', last_skipped_at: iso(clock.ms), next_run_at: iso(clock.ms + MINUTE),
    });
    expect(await h.agent.listRuns(`job:${job.id}`, 10)).toHaveLength(1);
    expect(h.events('scheduler.job.skip').map((e) => [e.result, e.severity, e.detail.reason])).toEqual([['deny', 'warning', 'in_flight']]);

    blocking.release();
    expect(await settled(h, job.id)).toMatchObject({ last_status: 'complete', run_count: 1 });
    clock.advance(MINUTE);
    await h.scheduler.runner.tick();
    expect(await settled(h, job.id)).toMatchObject({ last_status: 'complete', run_count: 2, skipped: 1 });
    expect(await h.agent.listRuns(`job:${job.id}`, 10)).toHaveLength(2);
  });

  it('skips fires outside an overnight active_hours window in the job\'s zone and fires inside it', async () => {
    // 20:30 in New York on January 5th.
    const clock = new TestClock(Date.parse('2026-01-06T01:30:00.000Z'));
    const h = await harness({ file: tempFile(), clock });
    const job = await h.scheduler.create({
      name: 'night', schedule: 'every 1 hours', task: 'what is 1+1?', active_hours: '22:00-06:00', timezone: 'America/New_York',
    });
    clock.advance(60 * MINUTE); // 21:30 local
    await h.scheduler.runner.tick();
    expect(await h.scheduler.get(job.id)).toMatchObject({ skipped: 1, last_skip_reason: 'active_hours', run_count: 0, last_status: null });
    expect(h.events('scheduler.job.skip').map((e) => [e.severity, e.detail.reason, e.detail.note])).toEqual([['info', 'active_hours', 'outside 22:00-06:00 America/New_York']]);
    for (let hour = 0; hour < 9; hour++) { // 22:30 … 06:30 local
      clock.advance(60 * MINUTE);
      await h.scheduler.runner.tick();
      await settled(h, job.id);
    }
    // Fired 22:30 through 05:30 (eight times); 06:30 is outside again.
    expect(await h.scheduler.get(job.id)).toMatchObject({ run_count: 8, skipped: 2, last_skip_reason: 'active_hours' });
  });

  it('skips a fire with reason budget when the job\'s session has spent max_spend_usd, before any provider call', async () => {
    const clock = new TestClock(Date.parse(T0));
    const h = await harness({ file: tempFile(), clock, config: { max_spend_usd: 1 } });
    const job = await h.scheduler.create({ name: 'costly', schedule: 'every 1 minutes', task: 'what is 2+2?' });
    await h.storage.costs.record({
      session_id: `job:${job.id}`, run_id: null, provider: 'offline', model: 'offline', prompt_tokens: 1, completion_tokens: 1, cost_usd: 1.5, timestamp: T0,
    });
    clock.advance(MINUTE);
    await h.scheduler.runner.tick();
    expect(await h.scheduler.get(job.id)).toMatchObject({ skipped: 1, last_skip_reason: 'budget', run_count: 0, last_run_id: null });
    expect(await h.agent.listRuns(`job:${job.id}`, 10)).toEqual([]);
    expect((await h.storage.costs.totals()).calls).toBe(1);
    expect(h.events('scheduler.job.skip')[0]!.detail.note).toMatch(/^budget exceeded: session 'job:job_\S+' has spent \$1\.5 of max_spend_usd \$1/);
  });

  it('ends a one-shot job after its fire', async () => {
    const clock = new TestClock(Date.parse(T0));
    const h = await harness({ file: tempFile(), clock });
    const job = await h.scheduler.create({ name: 'once', schedule: 'at 2026-01-05 12:30', task: 'what is 3*3?' });
    clock.set('2026-01-05T12:30:00.000Z');
    await h.scheduler.runner.tick();
    expect(await settled(h, job.id)).toMatchObject({ state: 'active', next_run_at: null, run_count: 1, last_status: 'complete' });
    clock.advance(24 * 60 * MINUTE);
    await h.scheduler.runner.tick();
    expect(await h.agent.listRuns(`job:${job.id}`, 10)).toHaveLength(1);
  });

  it('stops firing a paused job and resumes from the next occurrence, without counting paused ones as missed', async () => {
    const clock = new TestClock(Date.parse(T0));
    const h = await harness({ file: tempFile(), clock });
    const job = await h.scheduler.create({ name: 'tick', schedule: 'every 1 minutes', task: 'what is 2+2?' });
    expect(await h.scheduler.pause(job.id)).toEqual({ previous: 'active', current: 'paused' });
    await expect(h.scheduler.pause(job.id)).rejects.toMatchObject({ code: 'state_conflict', message: `job "${job.id}" is already paused` });
    clock.advance(10 * MINUTE + 30_000);
    await h.scheduler.runner.tick();
    expect(await h.scheduler.get(job.id)).toMatchObject({ state: 'paused', next_run_at: null, run_count: 0 });
    expect(await h.scheduler.resume(job.id)).toEqual({ previous: 'paused', current: 'active' });
    await expect(h.scheduler.resume(job.id)).rejects.toMatchObject({ code: 'state_conflict' });
    // The grid of `every` is kept: the next point after now is 11 minutes after creation.
    expect(await h.scheduler.get(job.id)).toMatchObject({ state: 'active', next_run_at: iso(Date.parse(T0) + 11 * MINUTE), missed: 0 });
    clock.set(iso(Date.parse(T0) + 11 * MINUTE));
    await h.scheduler.runner.tick();
    expect(await settled(h, job.id)).toMatchObject({ run_count: 1, missed: 0 });
  });

  it('records a fire whose provider cannot be used as an error without a run', async () => {
    const clock = new TestClock(Date.parse(T0));
    const file = tempFile();
    const withKey = await harness({ file, clock, env: { ANTHROPIC_API_KEY: 'sk-ant-test-0000000000000000' } });
    const job = await withKey.scheduler.create({ name: 'hosted', schedule: 'every 1 minutes', task: 'hello', provider: 'anthropic' });
    await restart(withKey);
    const h = await harness({ file, clock });
    clock.advance(MINUTE);
    await h.scheduler.runner.tick();
    const failed = await h.scheduler.get(job.id);
    expect(failed).toMatchObject({ last_status: 'error', run_count: 0, last_error: expect.stringMatching(/^provider 'anthropic' is not available: /) });
    expect(await h.agent.getRun(failed!.last_run_id!)).toBeNull();
    expect(h.events('scheduler.job.error').map((e) => e.detail.error)).toEqual([failed!.last_error]);
  });
});

describe('across restarts', () => {
  it('keeps jobs and their state; fires missed while down are counted and audited, not replayed', async () => {
    const clock = new TestClock(Date.parse(T0));
    const file = tempFile();
    const first = await harness({ file, clock });
    const job = await first.scheduler.create({ name: 'tick', schedule: 'every 1 minutes', task: 'what is 2+2?', description: 'kept' });
    clock.advance(MINUTE);
    await first.scheduler.runner.tick();
    const before = await settled(first, job.id);
    await restart(first);

    clock.advance(5 * MINUTE + 30_000); // down through five occurrences
    const second = await harness({ file, clock });
    expect((await second.scheduler.list({ limit: 10, offset: 0 })).jobs.map((job) => job.id)).toEqual([before.id]);
    expect(await second.scheduler.get(job.id)).toEqual(before);
    await second.scheduler.runner.tick();
    expect(await second.scheduler.get(job.id)).toMatchObject({
      run_count: 1, missed: 5, last_missed_at: iso(Date.parse(T0) + 6 * MINUTE), next_run_at: iso(Date.parse(T0) + 7 * MINUTE),
      last_status: 'complete', description: 'kept',
    });
    expect(await second.agent.listRuns(`job:${job.id}`, 10)).toHaveLength(1);
    expect(second.events('scheduler.job.missed').map((e) => [e.severity, e.detail.missed, e.detail.at_least, e.detail.last_missed_at])).toEqual([
      ['warning', 5, false, iso(Date.parse(T0) + 6 * MINUTE)],
    ]);
    clock.set(iso(Date.parse(T0) + 7 * MINUTE));
    await second.scheduler.runner.tick();
    expect(await settled(second, job.id)).toMatchObject({ run_count: 2, missed: 5 });
  });

  it('shows a fire claimed just before a crash as interrupted, once its claim is stale', async () => {
    const clock = new TestClock(Date.parse(T0));
    const file = tempFile();
    const first = await harness({ file, clock });
    const job = await first.scheduler.create({ name: 'tick', schedule: 'every 1 hours', task: 'what is 2+2?' });
    clock.advance(60 * MINUTE);
    // What a runner leaves when it dies between its claim and the run's start.
    await first.storage.jobs.claim(job.id, {
      expected: job.next_run_at!, next_run_at: iso(clock.ms + 60 * MINUTE), missed: 0, last_missed_at: null,
      fire: { at: iso(clock.ms), status: 'starting', run_id: 'run_never_started' },
    });
    await restart(first);

    const second = await harness({ file, clock });
    await second.scheduler.runner.tick();
    // Too fresh to tell from a runner that is starting it right now.
    expect(await second.scheduler.get(job.id)).toMatchObject({ last_status: 'starting', last_run_id: 'run_never_started' });
    clock.advance(STALE_CLAIM_MS);
    await second.scheduler.runner.tick();
    expect(await second.scheduler.get(job.id)).toMatchObject({
      last_status: 'interrupted', run_count: 0, last_error: 'the service stopped after claiming the fire and before its run started',
    });
    expect(second.events('scheduler.job.interrupted').map((e) => e.detail.run_id)).toEqual(['run_never_started']);
  });

  it('records a run cut short by shutdown as the run\'s error', async () => {
    const clock = new TestClock(Date.parse(T0));
    const blocking = blockingClock();
    const h = await harness({ file: tempFile(), clock, tools: [blocking.tool] });
    const job = await h.scheduler.create({ name: 'slow', schedule: 'every 1 minutes', task: 'what time is it?' });
    clock.advance(MINUTE);
    await h.scheduler.runner.tick();
    await blocking.started();
    const closing = restart(h);
    blocking.release();
    await closing;
    const reopened = await harness({ file: h.storage.database.path, clock });
    expect(await reopened.scheduler.get(job.id)).toMatchObject({ last_status: 'error', last_error: 'interrupted by shutdown', run_count: 1 });
  });
});

describe('two runners on one SQLite file', () => {
  it('fire each of 1,000 occurrences exactly once: no doubles, no misses', { timeout: 120_000 }, async () => {
    const clock = new TestClock(Date.parse(T0));
    const file = tempFile();
    const a = await harness({ file, clock, auditFile: tempFile() });
    const b = await harness({ file, clock, auditFile: tempFile() });
    const job = await a.scheduler.create({ name: 'busy', schedule: 'every 1 seconds', task: 'hello' });
    for (let n = 1; n <= 1000; n++) {
      clock.advance(1000);
      // Both look at the same due occurrence; who looks first alternates.
      const runners = n % 2 === 0 ? [a, b] : [b, a];
      await Promise.all(runners.map((h) => h.scheduler.runner.tick()));
      await Promise.all(runners.map((h) => h.scheduler.runner.drain()));
    }
    const final = await a.scheduler.get(job.id);
    expect(final).toMatchObject({ run_count: 1000, missed: 0, skipped: 0, last_status: 'complete', next_run_at: iso(clock.ms + 1000) });
    const runs = a.storage.database.db.prepare('SELECT id FROM runs WHERE session_id = ?').pluck().all(`job:${job.id}`) as string[];
    expect(new Set(runs).size).toBe(1000);
    const firedBy = [a, b].map((h) => h.events('scheduler.job.fire').map((e) => e.detail.scheduled_for as string));
    const scheduled = [...firedBy[0]!, ...firedBy[1]!].sort();
    expect(scheduled).toEqual(Array.from({ length: 1000 }, (_, i) => iso(Date.parse(T0) + (i + 1) * 1000)));
    // Both took part.
    expect(firedBy[0]!.length).toBeGreaterThan(100);
    expect(firedBy[1]!.length).toBeGreaterThan(100);
  });
});

/**
 * Real time, as `agentd serve` runs it: the runners' own loops (`start()`), with a skew the test
 * can jump to stand for a stall of the whole process (a busy machine, a slow store).
 */
class SkewedClock {
  skew = 0;
  readonly now = (): number => Date.now() + this.skew;
}

/** How late a fire may be claimed after its occurrence fell due while the runners are up: under one poll. */
const LATE_BOUND_MS = 800;

/** Every claim of the job recorded in these harnesses' audit trails: occurrence, how it went, when it was written. */
function claims(harnesses: SchedulerHarness[], jobId: string): { due: number; action: string; late: number }[] {
  return harnesses.flatMap((h) => h.events()
    .filter((e) => e.task_id === jobId && (e.action === 'fire' || e.action === 'skip'))
    .map((e) => {
      const due = Date.parse(e.detail.scheduled_for as string);
      return { due, action: e.action ?? '', late: Date.parse(e.timestamp) - due };
    }))
    .sort((a, b) => a.due - b.due);
}

/** The occurrences of an `every 1 seconds` job from `first` to `last`, one a second. */
const everySecond = (first: number, last: number) => Array.from({ length: (last - first) / 1000 + 1 }, (_, i) => first + i * 1000);

describe('the runner\'s own loop, in real time', () => {
  it('fires a job that fell due during its pass at once, and catches up after a stall without counting late claims as missed', { timeout: 30_000 }, async () => {
    const clock = new SkewedClock();
    const h = await harness({ file: tempFile(), clock });
    const job = await h.scheduler.create({ name: 'secondly', schedule: 'every 1 seconds', task: 'hello' });
    h.scheduler.runner.start();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    // The process "stalls" 2.5 s (under the one-minute grace): the claims that follow come late.
    clock.skew += 2_500;
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    await h.scheduler.runner.stop();
    await h.scheduler.runner.drain();

    const seen = claims([h], job.id);
    const final = await h.scheduler.get(job.id);
    // Late, not missed: every occurrence was claimed once (fired, or skipped while its predecessor ran).
    expect(final).toMatchObject({ missed: 0, last_missed_at: null });
    expect(h.events('scheduler.job.missed')).toEqual([]);
    expect(seen.map((c) => c.due)).toEqual(everySecond(seen[0]!.due, seen.at(-1)!.due));
    expect(final!.run_count).toBe(seen.filter((c) => c.action === 'fire').length);
    // Caught up: the fires of the last two seconds were claimed promptly, not a poll (or more) late.
    const recent = seen.filter((c) => c.due >= seen.at(-1)!.due - 2_000);
    expect(recent.length).toBeGreaterThanOrEqual(2);
    for (const claim of recent) expect(claim.late).toBeLessThan(LATE_BOUND_MS);
  });

  it('three runners on one SQLite file claim every occurrence of an `every 1 seconds` job once across a short stall, none missed, promptly once caught up', { timeout: 30_000 }, async () => {
    const clock = new SkewedClock();
    const file = tempFile();
    const runners = [await harness({ file, clock, auditFile: tempFile() })];
    runners.push(await harness({ file, clock, auditFile: tempFile() }), await harness({ file, clock, auditFile: tempFile() }));
    const job = await runners[0]!.scheduler.create({ name: 'secondly', schedule: 'every 1 seconds', task: 'hello' });
    for (const h of runners) h.scheduler.runner.start();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    // A stall of 1.5 s: the next claims come late, and are fires (or in_flight skips), not misses.
    clock.skew += 1_500;
    const resumed = clock.now();
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    for (const h of runners) await h.scheduler.runner.stop();
    for (const h of runners) await h.scheduler.runner.drain();

    const seen = claims(runners, job.id);
    const final = await runners[0]!.scheduler.get(job.id);
    expect(final).toMatchObject({ missed: 0, last_missed_at: null });
    expect(runners.flatMap((h) => h.events('scheduler.job.missed'))).toEqual([]);
    // Each occurrence once across the three (no double fire, no gap), at least four of them.
    expect(seen.length).toBeGreaterThanOrEqual(4);
    expect(seen.map((c) => c.due)).toEqual(everySecond(Date.parse(job.next_run_at!), seen.at(-1)!.due));
    const runs = runners[0]!.storage.database.db.prepare('SELECT id FROM runs WHERE session_id = ?').pluck().all(`job:${job.id}`) as string[];
    expect(runs).toHaveLength(seen.filter((c) => c.action === 'fire').length);
    // Caught up after the stall: what fell due a second after it is claimed promptly on every runner.
    const after = seen.filter((c) => c.due >= resumed + 1_000);
    expect(after.length).toBeGreaterThanOrEqual(2);
    for (const claim of after) expect(claim.late).toBeLessThan(LATE_BOUND_MS);
  });

  it('still counts as missed what fell due while a runner was stopped for more than a minute', async () => {
    const clock = new TestClock(Date.parse(T0));
    const file = tempFile();
    const a = await harness({ file, clock, auditFile: tempFile() });
    const b = await harness({ file, clock, auditFile: tempFile() });
    const job = await a.scheduler.create({ name: 'secondly', schedule: 'every 1 seconds', task: 'hello' });
    clock.advance(1_000);
    await a.scheduler.runner.tick();
    await a.scheduler.runner.drain();
    // Both runners stop looking for 90 s (the whole service stalled, or was down).
    clock.advance(90_000);
    for (let pass = 0; pass < 70; pass++) {
      await Promise.all([a, b].map((h) => h.scheduler.runner.tick()));
      await Promise.all([a, b].map((h) => h.scheduler.runner.drain()));
    }
    const final = await a.scheduler.get(job.id);
    // Occurrences older than a minute are missed (T0+2 s … T0+30 s: 29), never replayed; those
    // inside the minute are claimed in turn, each once, up to now.
    expect(final).toMatchObject({ missed: 29, last_missed_at: iso(Date.parse(T0) + 30_000), next_run_at: iso(Date.parse(T0) + 92_000) });
    const seen = claims([a, b], job.id);
    expect(seen.map((c) => c.due)).toEqual(everySecond(Date.parse(T0) + 1_000, Date.parse(T0) + 1_000).concat(everySecond(Date.parse(T0) + 31_000, Date.parse(T0) + 91_000)));
    expect([a, b].flatMap((h) => h.events('scheduler.job.missed')).map((e) => [e.detail.missed, e.detail.last_missed_at]))
      .toEqual([[29, iso(Date.parse(T0) + 30_000)]]);
  });
});
