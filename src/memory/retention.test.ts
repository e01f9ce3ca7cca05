import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Database } from '../storage/database.js';
import { startRetention } from './retention.js';
import { SqliteTurnStore } from './sqlite-turn-store.js';

let dir: string;
let database: Database;
let clock: number;
let store: SqliteTurnStore;
const DAY = 86_400_000;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentd-retention-'));
  database = new Database(join(dir, 'agentd.db'));
  clock = Date.parse('2025-03-01T00:00:00Z');
  store = new SqliteTurnStore(database, { now: () => clock });
});

afterEach(() => {
  database.close();
  rmSync(dir, { recursive: true, force: true });
});

const at = (ms: number) => new Date(ms).toISOString();
const lines = () => {
  const info: string[] = [];
  const error: string[] = [];
  return { info, error, log: { info: (m: string) => info.push(m), error: (m: string) => error.push(m) } };
};

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(condition()).toBe(true);
}

it('cleans up at start and again on every interval, sparing pinned turns', async () => {
  store.add({ session_id: 's', role: 'user', provider: null, content: 'old secret words', timestamp: at(clock - 10 * DAY) });
  const pinned = store.add({ session_id: 's', role: 'user', provider: null, content: 'old but pinned', timestamp: at(clock - 10 * DAY) });
  store.setPinned(pinned.id, true);
  store.add({ session_id: 's', role: 'user', provider: null, content: 'fresh', timestamp: at(clock - 1 * DAY) });
  const { info, log } = lines();
  const stop = startRetention(store, 7, log, { intervalMs: 20 });
  try {
    await until(() => info.length === 1);
    expect(store.count()).toBe(2);
    expect(info).toEqual(['memory retention: removed 1 turns older than 7 days']);
    expect(info.join('\n')).not.toContain('secret');

    clock += 7 * DAY; // the "fresh" turn is now 8 days old
    await until(() => info.length === 2);
    expect(store.count()).toBe(1);
    expect(store.get(pinned.id)).not.toBeNull();
  } finally {
    await stop();
  }
});

it('days = 0 keeps everything', async () => {
  store.add({ session_id: 's', role: 'user', provider: null, content: 'ancient', timestamp: '2000-01-01T00:00:00Z' });
  const stop = startRetention(store, 0, undefined, { intervalMs: 5 });
  await new Promise((r) => setTimeout(r, 30));
  await stop();
  expect(store.count()).toBe(1);
});

it('stop halts a running cleanup between batches', async () => {
  const batched = new SqliteTurnStore(database, { now: () => clock, cleanupBatch: 10 });
  batched.addMany(Array.from({ length: 1000 }, () => ({
    session_id: 's', role: 'user' as const, provider: null, content: 'x', timestamp: at(clock - 30 * DAY),
  })));
  const stop = startRetention(batched, 7);
  await stop();
  // The first batch ran synchronously inside startRetention; the abort stopped the rest.
  expect(batched.count()).toBeLessThan(1000);
  expect(batched.count()).toBeGreaterThan(900);
});

it('logs a failure instead of throwing', async () => {
  const { error, log } = lines();
  database.close();
  const stop = startRetention(store, 7, log, { intervalMs: 10_000 });
  await stop();
  expect(error).toEqual([]);
  // A closed database ends the cleanup quietly; a store that throws is reported.
  const failing = { ...store, cleanupOlderThan: () => Promise.reject(new Error('disk I/O error')) } as unknown as SqliteTurnStore;
  const stop2 = startRetention(failing, 7, log, { intervalMs: 10_000 });
  await until(() => error.length === 1);
  await stop2();
  expect(error[0]).toBe('memory retention failed: disk I/O error');
});
