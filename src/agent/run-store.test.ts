import { afterEach, describe, expect, it } from 'vitest';
import { Database } from '../storage/database.js';
import { SqliteRunStore } from './run-store.js';
import type { RunRecord } from './types.js';

const dbs: Database[] = [];
afterEach(() => dbs.splice(0).forEach((db) => db.close()));

function store(): SqliteRunStore {
  const db = new Database(':memory:');
  dbs.push(db);
  return new SqliteRunStore(db);
}

const record = (id: string, session = 'ses_1'): RunRecord => ({
  run_id: id, session_id: session, status: 'pending', provider: null, resolved_provider: 'offline',
  created_at: '2026-01-01T00:00:00.000Z', started_at: null, finished_at: null, response: null, error: null,
  tools_used: [], cost: { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 },
});
const ev = (id: number, name: 'run.start' | 'tool.request' | 'run.complete', data = '{}') => ({ id, name, data });

describe('SqliteRunStore', () => {
  it('stores the lifecycle and the event log, replaying after an id', () => {
    const runs = store();
    runs.create(record('run_a'));
    runs.start('run_a', '2026-01-01T00:00:01.000Z', ev(1, 'run.start'));
    runs.appendEvent('run_a', ev(2, 'tool.request', '{"x":1}'));
    runs.finish('run_a', {
      status: 'complete', finished_at: '2026-01-01T00:00:02.000Z', response: 'ok', error: null,
      tools_used: ['calculator'], cost: { prompt_tokens: 3, completion_tokens: 4, cost_usd: 0.5 },
    }, ev(3, 'run.complete'));
    expect(runs.get('run_a')).toMatchObject({ status: 'complete', started_at: '2026-01-01T00:00:01.000Z', response: 'ok', tools_used: ['calculator'], cost: { prompt_tokens: 3, completion_tokens: 4, cost_usd: 0.5 } });
    expect(runs.events('run_a', 0).map((e) => e.id)).toEqual([1, 2, 3]);
    expect(runs.events('run_a', 1)).toEqual([{ id: 2, name: 'tool.request', data: '{"x":1}' }, { id: 3, name: 'run.complete', data: '{}' }]);
    expect(runs.events('run_a', 3)).toEqual([]);
    expect(() => runs.appendEvent('run_a', ev(3, 'run.complete'))).toThrow();
  });

  it('lists newest first per session', () => {
    const runs = store();
    for (const id of ['r1', 'r2', 'r3']) runs.create(record(id));
    runs.create(record('other', 'ses_2'));
    expect(runs.listBySession('ses_1', 2).map((r) => r.run_id)).toEqual(['r3', 'r2']);
  });

  it('fails unfinished runs at recovery with a terminal run.error after their last event', () => {
    const runs = store();
    runs.create(record('pending'));
    runs.create(record('running'));
    runs.start('running', '2026-01-01T00:00:01.000Z', ev(1, 'run.start'));
    runs.appendEvent('running', ev(2, 'tool.request'));
    runs.create(record('done'));
    runs.finish('done', { status: 'complete', finished_at: 'x', response: 'r', error: null, tools_used: [], cost: { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 } }, ev(1, 'run.complete'));

    expect(runs.recoverInterrupted('2026-01-02T00:00:00.000Z', 'interrupted by restart').sort()).toEqual(['pending', 'running']);
    expect(runs.get('running')).toMatchObject({ status: 'error', error: 'interrupted by restart', finished_at: '2026-01-02T00:00:00.000Z' });
    const [terminal, ...rest] = runs.events('running', 2);
    expect(rest).toEqual([]);
    expect(terminal).toMatchObject({ id: 3, name: 'run.error' });
    expect(JSON.parse(terminal!.data)).toMatchObject({ run_id: 'running', error: 'interrupted by restart', tools_used: [], cost: { cost_usd: 0 } });
    // A run that never started still gets the run.start its log must open with.
    expect(runs.events('pending', 0).map((e) => `${e.id}:${e.name}`)).toEqual(['1:run.start', '2:run.error']);
    expect(runs.get('done')!.status).toBe('complete');
    expect(runs.recoverInterrupted('later', 'again')).toEqual([]);
  });
});
