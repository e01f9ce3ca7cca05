import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { RunRecord } from '../src/storage/ports/runs.js';
import { SqliteStorage } from '../src/storage/sqlite/index.js';

/**
 * A deleted turn's text must not remain on disk: not in the database file, not in its WAL, not in
 * the copies the run that produced it keeps. The tests read every file of the home folder as it is
 * (no checkpoint by hand), the way someone holding the disk would.
 */
let home: string;
let storage: SqliteStorage;
const NOW = Date.parse('2025-01-31T00:00:00Z');

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'agentd-memory-file-'));
  storage = new SqliteStorage(join(home, 'agentd.db'), { now: () => NOW });
});

afterEach(async () => {
  await storage.close();
  rmSync(home, { recursive: true, force: true });
});

/** Every byte of every file in the home folder (the database, its -wal and -shm). */
function homeBytes(): Buffer {
  return Buffer.concat(readdirSync(home).map((name) => readFileSync(join(home, name))));
}

it('a deleted answer leaves no trace in any file, nor in its run\'s response and event log', async () => {
  const marker = 'qzxvanswerjwkp';
  const control = 'qzxvquestionjwkp';
  const answer = `the secret plan is ${marker} tomorrow`;
  const run: RunRecord = {
    run_id: 'run_1', session_id: 'sess_a', message: `what is the plan ${control}`, status: 'pending', provider: null, resolved_provider: 'offline',
    created_at: '2025-01-30T00:00:00.000Z', started_at: null, finished_at: null, response: null, error: null,
    tools_used: [], cost: { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 }, source: 'api', job_id: null, model: null, first_token_at: null,
  };
  await storage.runs.create(run);
  await storage.runs.start('run_1', '2025-01-30T00:00:01.000Z', { id: 1, name: 'run.start', data: '{"run_id":"run_1"}' });
  const [, assistant] = await storage.turns.addMany([
    { session_id: 'sess_a', role: 'user', provider: null, content: `what is the plan ${control}`, run_id: 'run_1' },
    { session_id: 'sess_a', role: 'assistant', provider: 'offline', content: answer, run_id: 'run_1' },
  ]);
  await storage.runs.finish('run_1', {
    status: 'complete', finished_at: '2025-01-30T00:00:02.000Z', response: answer, error: null, tools_used: [], model: null, first_token_at: null, cost: run.cost,
  }, { id: 2, name: 'run.complete', data: JSON.stringify({ run_id: 'run_1', response: answer }) });
  expect(homeBytes().includes(marker)).toBe(true);

  expect(await storage.turns.delete(assistant!.id)).toMatchObject({ id: assistant!.id, content: answer });

  const bytes = homeBytes();
  expect(bytes.includes(marker)).toBe(false);
  // The read does see the files: the question, which was not deleted, is still there.
  expect(bytes.includes(control)).toBe(true);
  expect((await storage.runs.get('run_1'))!.response).toBe('[deleted]');
  const events = await storage.runs.events('run_1', 0);
  expect(JSON.parse(events[1]!.data)).toEqual({ run_id: 'run_1', response: '[deleted]' });
  expect(await storage.turns.search(marker, { limit: 5 })).toEqual([]);
});

it('a deleted question leaves no trace in its run\'s stored message', async () => {
  const marker = 'qzxvquestionmarkerjwkp';
  const question = `please keep ${marker} safe`;
  await storage.runs.create({
    run_id: 'run_q', session_id: 'sess_a', message: question, status: 'pending', provider: null, resolved_provider: 'offline',
    created_at: '2025-01-30T00:00:00.000Z', started_at: null, finished_at: null, response: null, error: null,
    tools_used: [], cost: { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 }, source: 'api', job_id: null, model: null, first_token_at: null,
  });
  const [user] = await storage.turns.addMany([{ session_id: 'sess_a', role: 'user', provider: null, content: question, run_id: 'run_q' }]);
  expect((await storage.runs.get('run_q'))!.message).toBe(question);

  await storage.turns.delete(user!.id);
  expect((await storage.runs.get('run_q'))!.message).toBe('[deleted]');
  expect(homeBytes().includes(marker)).toBe(false);
});

it('deleted text does not remain between live neighbours or in overflow pages', async () => {
  const marker = 'qzxvmarkerjwkp';
  // Neighbours on the same pages, so the deleted cells sit between live ones.
  await storage.turns.addMany(Array.from({ length: 200 }, (_, i) => ({
    session_id: 'sess_a', role: 'user' as const, provider: null, content: `ordinary neighbour text number ${i}`,
  })));
  const [doomed] = await storage.turns.addMany([{ session_id: 'sess_a', role: 'assistant', provider: null, content: `secret plan ${marker} ends` }]);
  // A long turn spills into overflow pages, which secure_delete must zero as well.
  const [long] = await storage.turns.addMany([{ session_id: 'sess_a', role: 'user', provider: null, content: `${'padding '.repeat(2000)}${marker}2` }]);
  await storage.turns.addMany(Array.from({ length: 200 }, (_, i) => ({
    session_id: 'sess_a', role: 'user' as const, provider: null, content: `later neighbour ${i}`,
  })));
  expect(homeBytes().includes(marker)).toBe(true);

  expect(await storage.turns.delete(doomed!.id)).not.toBeNull();
  expect(await storage.turns.delete(long!.id)).not.toBeNull();
  const bytes = homeBytes();
  expect(bytes.includes(marker)).toBe(false);
  expect(bytes.includes('later neighbour 199')).toBe(true);
  expect(await storage.turns.search('neighbour', { limit: 500 })).toHaveLength(400);
});

it('text removed by age cleanup does not remain in any file either', async () => {
  await storage.turns.addMany([
    { session_id: 'sess_a', role: 'user', provider: null, content: 'stale wqpxexpired', timestamp: '2024-01-01T00:00:00Z' },
    { session_id: 'sess_a', role: 'user', provider: null, content: 'fresh wqpxcurrent' },
  ]);
  expect(homeBytes().includes('wqpxexpired')).toBe(true);
  expect(await storage.turns.cleanupOlderThan(30)).toBe(1);
  const bytes = homeBytes();
  expect(bytes.includes('wqpxexpired')).toBe(false);
  expect(bytes.includes('wqpxcurrent')).toBe(true);
});
