import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { AuditLog } from '../audit/log.js';
import type { RunRecord } from './ports/runs.js';
import type { NewTurn } from './ports/turns.js';
import { startRetention, type RetentionRule } from './retention.js';
import { SqliteStorage } from './sqlite/index.js';

const DAY = 86_400_000;
let clock: number;
let storage: SqliteStorage;
let audit: AuditLog;

beforeEach(() => {
  clock = Date.parse('2025-03-01T00:00:00Z');
  storage = new SqliteStorage(':memory:', { now: () => clock, turns: { cleanupBatch: 10 } });
  audit = new AuditLog(storage.audit, () => clock);
});

afterEach(async () => {
  vi.useRealTimers();
  await storage.close();
});

const at = (ms: number) => new Date(ms).toISOString();
const cutoff = (days: number) => at(clock - days * DAY);
const oldTurn = (content: string, age: number): NewTurn => ({ session_id: 's', role: 'user', provider: null, content, timestamp: at(clock - age * DAY) });

/** The rules as the app builds them (src/app.ts `retentionRules`), each with its own age. */
function rules(days: { turns?: number; runs?: number; costs?: number; audit?: number }): RetentionRule[] {
  return [
    { what: 'turns', days: days.turns ?? 0, prune: (d, signal) => storage.turns.cleanupOlderThan(d, { signal }) },
    { what: 'runs', days: days.runs ?? 0, prune: (d, signal) => storage.runs.pruneFinishedBefore(cutoff(d), { signal }) },
    { what: 'cost records', days: days.costs ?? 0, prune: (d, signal) => storage.costs.pruneBefore(cutoff(d), { signal }) },
    { what: 'audit events', days: days.audit ?? 0, prune: (d, signal) => audit.prune(d, { signal }) },
  ];
}

const lines = () => {
  const info: string[] = [];
  const error: string[] = [];
  return { info, error, log: { info: (m: string) => info.push(m), error: (m: string) => error.push(m) } };
};

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(condition()).toBe(true);
}

async function finishedRun(id: string, finishedAt: string): Promise<void> {
  const run: RunRecord = {
    run_id: id, session_id: 's', message: 'm', status: 'pending', provider: null, resolved_provider: 'offline', created_at: finishedAt,
    started_at: null, finished_at: null, response: null, error: null, tools_used: [], cost: { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 }, source: 'api', job_id: null, model: null, first_token_at: null,
  };
  await storage.runs.create(run);
  await storage.runs.finish(id, { status: 'complete', finished_at: finishedAt, response: 'r', error: null, tools_used: [], model: null, first_token_at: null, cost: run.cost },
    { id: 1, name: 'run.complete', data: '{}' });
}

it('prunes every table at start and again on every interval, logging counts only', async () => {
  await storage.turns.addMany([oldTurn('old secret words', 10), oldTurn('old but pinned', 10), oldTurn('fresh', 1)]);
  const pinned = (await storage.turns.history('s', 10))[1]!;
  await storage.turns.setPinned(pinned.id, true);
  await finishedRun('run_old', at(clock - 40 * DAY));
  await finishedRun('run_new', at(clock - 1 * DAY));
  await storage.costs.record({ session_id: 's', run_id: null, provider: 'p', model: 'm', prompt_tokens: 1, completion_tokens: 1, cost_usd: 1, timestamp: at(clock - 100 * DAY) });
  clock -= 400 * DAY;
  await audit.emit({ event_type: 'ancient', category: 'test', result: 'allow' });
  clock += 400 * DAY;
  await audit.emit({ event_type: 'recent', category: 'test', result: 'allow' });

  const { info, error, log } = lines();
  const stop = startRetention(rules({ turns: 7, runs: 30, costs: 90, audit: 365 }), log, { intervalMs: 20 });
  try {
    await until(() => info.length === 4);
    expect(info).toEqual([
      'retention: removed 1 turns older than 7 days',
      'retention: removed 1 runs older than 30 days',
      'retention: removed 1 cost records older than 90 days',
      'retention: removed 1 audit events older than 365 days',
    ]);
    expect(info.join('\n')).not.toContain('secret');
    expect(error).toEqual([]);
    expect(await storage.turns.count()).toBe(2);
    expect(await storage.runs.get('run_old')).toBeNull();
    expect(await storage.runs.get('run_new')).not.toBeNull();
    expect(await storage.costs.sessionSpend('s')).toBe(0);
    expect(await audit.verify()).toEqual({ ok: true, count: 2 });

    clock += 7 * DAY; // the "fresh" turn is now 8 days old
    await until(() => info.length === 5);
    expect(info[4]).toBe('retention: removed 1 turns older than 7 days');
    expect(await storage.turns.count()).toBe(1);
    expect(await storage.turns.get(pinned.id)).not.toBeNull();
  } finally {
    await stop();
  }
});

it('never runs a rule whose age is 0', async () => {
  await storage.turns.addMany([oldTurn('ancient', 9_000)]);
  await finishedRun('run_old', '2000-01-01T00:00:00.000Z');
  const { info, log } = lines();
  const stop = startRetention(rules({ turns: 0, runs: 1 }), log, { intervalMs: 5 });
  await until(() => info.length === 1);
  await stop();
  expect(info).toEqual(['retention: removed 1 runs older than 1 days']);
  expect(await storage.turns.count()).toBe(1);
});

it('stop halts a running pass between slices, and the later rules do not start', async () => {
  await storage.turns.addMany(Array.from({ length: 1000 }, () => oldTurn('x', 30)));
  await finishedRun('run_old', at(clock - 40 * DAY));
  const stop = startRetention(rules({ turns: 7, runs: 30 }));
  await stop();
  // The first slice ran synchronously inside startRetention; the abort stopped the rest.
  const left = await storage.turns.count();
  expect(left).toBeLessThan(1000);
  expect(left).toBeGreaterThan(900);
  expect(await storage.runs.get('run_old')).not.toBeNull();
});

it('logs a failing rule and goes on with the next', async () => {
  await storage.turns.addMany([oldTurn('old', 30)]);
  const { info, error, log } = lines();
  const failing: RetentionRule = { what: 'broken things', days: 7, prune: () => Promise.reject(new Error('disk I/O error')) };
  const stop = startRetention([failing, ...rules({ turns: 7 })], log, { intervalMs: 10_000 });
  await until(() => info.length === 1);
  await stop();
  expect(error).toEqual(['broken things retention failed: disk I/O error']);
  expect(info).toEqual(['retention: removed 1 turns older than 7 days']);
});

it('ends quietly on a closed storage', async () => {
  await storage.turns.addMany([oldTurn('old', 30)]);
  await storage.close();
  const { info, error, log } = lines();
  const stop = startRetention(rules({ turns: 7, runs: 7, costs: 7, audit: 7 }), log, { intervalMs: 10_000 });
  await stop();
  expect(error).toEqual([]);
  expect(info).toEqual([]);
});

it('does not start a second pass while one is still running', async () => {
  vi.useFakeTimers();
  let calls = 0;
  let finish = (): void => {};
  const slow: RetentionRule = {
    what: 'slow', days: 1, prune: () => {
      calls++;
      return new Promise<number>((resolve) => (finish = () => resolve(0)));
    },
  };
  const stop = startRetention([slow], undefined, { intervalMs: 10 });
  await vi.advanceTimersByTimeAsync(100);
  expect(calls).toBe(1);
  finish();
  await vi.advanceTimersByTimeAsync(10);
  expect(calls).toBe(2);
  finish();
  await stop();
});
