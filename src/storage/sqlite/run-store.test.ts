import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunRecord } from '../ports/runs.js';
import { Database } from './database.js';
import { SqliteStorage } from './index.js';
import { MIGRATIONS } from './migrations/index.js';

/** What only the SQLite run store has: its keys, its cascade and its slices. */
let storage: SqliteStorage;

beforeEach(() => {
  storage = new SqliteStorage(':memory:');
});

afterEach(async () => {
  await storage.close();
});

const record = (id: string): RunRecord => ({
  run_id: id, session_id: 'ses_1', message: 'm', status: 'pending', provider: null, resolved_provider: 'offline',
  created_at: '2026-01-01T00:00:00.000Z', started_at: null, finished_at: null, response: null, error: null,
  tools_used: [], cost: { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 }, source: 'api', job_id: null, model: null, first_token_at: null,
});
const count = (table: string) => (storage.database.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

async function finished(id: string, finishedAt: string): Promise<void> {
  await storage.runs.create(record(id));
  await storage.runs.start(id, '2026-01-01T00:00:00.000Z', { id: 1, name: 'run.start', data: '{}' });
  await storage.runs.finish(id, {
    status: 'complete', finished_at: finishedAt, response: 'r', error: null, tools_used: [], model: null, first_token_at: null,
    cost: { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 },
  }, { id: 2, name: 'run.complete', data: '{}' });
}

describe('SqliteRunStore', () => {
  it('refuses a second event with the same id in a run (primary key) and keeps the first', async () => {
    await storage.runs.create(record('run_a'));
    await storage.runs.appendEvent('run_a', { id: 1, name: 'run.start', data: '{"first":true}' });
    await expect(storage.runs.appendEvent('run_a', { id: 1, name: 'run.start', data: '{"second":true}' })).rejects.toThrow(/UNIQUE|PRIMARY/);
    expect(await storage.runs.events('run_a', 0)).toEqual([{ id: 1, name: 'run.start', data: '{"first":true}' }]);
  });

  it('pruning deletes the event rows with their run (ON DELETE CASCADE)', async () => {
    await finished('old', '2026-01-01T00:00:00.000Z');
    await finished('new', '2026-03-01T00:00:00.000Z');
    expect(count('run_events')).toBe(4);
    expect(await storage.runs.pruneFinishedBefore('2026-02-01T00:00:00.000Z')).toBe(1);
    expect(count('run_events')).toBe(2);
    expect(count('runs')).toBe(1);
  });

  it('pruning stops between slices when aborted', async () => {
    for (let i = 0; i < 40; i++) await finished(`old_${i}`, `2026-01-01T00:00:${String(i).padStart(2, '0')}.000Z`);
    const controller = new AbortController();
    const running = storage.runs.pruneFinishedBefore('2026-02-01T00:00:00.000Z', { signal: controller.signal });
    // The first slice ran before the call returned; the abort stops the rest.
    controller.abort();
    const removed = await running;
    expect(removed).toBeGreaterThan(0);
    expect(removed).toBeLessThan(40);
    expect(count('runs')).toBe(40 - removed);
    // Oldest first: what is left is the newest.
    expect((await storage.runs.get('old_39'))!.status).toBe('complete');
    expect(await storage.runs.get('old_0')).toBeNull();
  });

  it('gives runs stored before their source one from their session (migration 16)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentd-run-source-'));
    try {
      const file = join(dir, 'agentd.db');
      const before = new Database(file, MIGRATIONS.filter((m) => m.version < 16));
      const insert = before.db.prepare(`INSERT INTO runs (id, session_id, status, created_at) VALUES (?, ?, 'complete', '2026-01-01T00:00:00.000Z')`);
      for (const [id, session] of [['run_api', 'ses_1'], ['run_job', 'job:job_7'], ['run_hook', 'webhook:ci'], ['run_like', 'JOB:x']]) insert.run(id, session);
      before.close();
      const after = new Database(file);
      expect(after.db.prepare('SELECT id, source, job_id FROM runs ORDER BY seq').all()).toEqual([
        { id: 'run_api', source: 'api', job_id: null },
        { id: 'run_job', source: 'job', job_id: 'job_7' },
        { id: 'run_hook', source: 'webhook', job_id: null },
        { id: 'run_like', source: 'api', job_id: null },
      ]);
      after.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads runs stored before the model and first token time were kept as null, and keeps them from the end on (migration 17)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentd-run-trace-'));
    try {
      const file = join(dir, 'agentd.db');
      const before = new Database(file, MIGRATIONS.filter((m) => m.version < 17));
      before.db.prepare(`INSERT INTO runs (id, session_id, status, created_at) VALUES ('run_old', 'ses_1', 'complete', '2026-01-01T00:00:00.000Z')`).run();
      before.close();
      const after = new SqliteStorage(file);
      try {
        expect(await after.runs.get('run_old')).toMatchObject({ run_id: 'run_old', status: 'complete', model: null, first_token_at: null });
        await after.runs.create(record('run_new'));
        await after.runs.start('run_new', '2026-01-01T00:00:01.000Z', { id: 1, name: 'run.start', data: '{}' });
        await after.runs.finish('run_new', {
          status: 'complete', finished_at: '2026-01-01T00:00:03.000Z', response: 'r', error: null, tools_used: [],
          model: 'gpt-4.1-mini-2025', first_token_at: '2026-01-01T00:00:02.000Z', cost: { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 },
        }, { id: 2, name: 'run.complete', data: '{}' });
        expect(await after.runs.get('run_new')).toMatchObject({ model: 'gpt-4.1-mini-2025', first_token_at: '2026-01-01T00:00:02.000Z' });
      } finally {
        await after.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
