import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunEventName, RunRecord } from '../ports/runs.js';
import type { NewTurn } from '../ports/turns.js';
import { SqliteStorage } from './index.js';
import { ERASED_TEXT } from './run-text-eraser.js';
import { SqliteTurnStore, type SqliteTurnStoreOptions } from './turn-store.js';

/** What only the SQLite turn store has: its FTS5 index, its tuning, its validation and erasure. */
let storage: SqliteStorage;

beforeEach(() => {
  storage = new SqliteStorage(':memory:');
});

afterEach(async () => {
  await storage.close();
});

/** Another store on the same database and unit of work, with other knobs. */
const tuned = (options: SqliteTurnStoreOptions) => new SqliteTurnStore(storage.database, storage.uow, options);

const turn = (content: string, session_id = 'sess_a', extra: Partial<NewTurn> = {}): NewTurn => ({
  session_id, role: 'user', content, provider: 'offline', ...extra,
});

/** Index rows matching a raw FTS5 expression, bypassing the store's join to `turns`. */
const rawIndexMatches = (expression: string): number =>
  (storage.database.db.prepare('SELECT count(*) AS n FROM turns_fts WHERE turns_fts MATCH ?').get(expression) as { n: number }).n;
const rowCount = () => (storage.database.db.prepare('SELECT count(*) AS n FROM turns').get() as { n: number }).n;

describe('validation', () => {
  it('refuses bad input before writing anything', async () => {
    const store = storage.turns;
    await expect(store.addMany([turn('x', '')])).rejects.toThrow(/session_id/);
    await expect(store.addMany([turn('x', 's'.repeat(257))])).rejects.toThrow(/session_id/);
    await expect(store.addMany([{ ...turn('x'), role: 'robot' as never }])).rejects.toThrow(/role/);
    await expect(store.addMany([turn('x', 'sess_a', { timestamp: 'yesterday' })])).rejects.toThrow(/timestamp/);
    await expect(store.history('sess_a', 0)).rejects.toThrow(/limit/);
    await expect(store.search('x', { limit: 0 })).rejects.toThrow(/limit/);
    expect(rowCount()).toBe(0);
  });
});

describe('the FTS5 index stays in step', () => {
  it('delete removes the index row', async () => {
    const [doomed] = await storage.turns.addMany([turn('forget this zanzibar'), turn('keep this zanzibar')]);
    expect(rawIndexMatches('zanzibar')).toBe(2);
    await storage.turns.delete(doomed!.id);
    expect(rawIndexMatches('zanzibar')).toBe(1);
    expect(rawIndexMatches('forget')).toBe(0);
  });

  it('through a mix of adds, deletes and re-adds', async () => {
    const store = storage.turns;
    const added = await store.addMany(Array.from({ length: 30 }, (_, i) => turn(`entry ${i} ${i % 3 === 0 ? 'fizz' : 'plain'}`)));
    for (const t of added.slice(0, 9)) await store.delete(t.id);
    // A replaced text (what an edit would be): the old turn goes, a new one comes.
    for (const i of [12, 15]) {
      await store.delete(added[i]!.id);
      await store.addMany([turn(`entry rewritten ${i === 12 ? 'plain' : 'fizz'}`)]);
    }
    const withFizz = (await store.history('sess_a', 100)).filter((t) => /\bfizz\b/.test(t.content)).length;
    expect(withFizz).toBe(6);
    expect(rawIndexMatches('fizz')).toBe(withFizz);
    expect(rawIndexMatches('rewritten')).toBe(2);
    expect(rawIndexMatches('entry')).toBe(21);
    expect(await store.search('fizz', { limit: 100 })).toHaveLength(withFizz);
  });

  it('count() reads the index row count and agrees with count(*)', async () => {
    const added = await storage.turns.addMany(Array.from({ length: 25 }, (_, i) => turn(`t ${i}`)));
    await storage.turns.delete(added[3]!.id);
    expect(await storage.turns.count()).toBe(24);
    expect(rowCount()).toBe(24);
  });

  it('pinning does not touch the index row', async () => {
    const [t] = await storage.turns.addMany([turn('indexed words stay put'), turn('another turn')]);
    const snapshot = () =>
      ['turns_fts_data', 'turns_fts_idx', 'turns_fts_docsize'].map((table) =>
        storage.database.db.prepare(`SELECT * FROM ${table} ORDER BY 1, 2`).all());
    const totalChanges = () => (storage.database.db.prepare('SELECT total_changes() AS n').get() as { n: number }).n;
    const before = snapshot();
    const changesBefore = totalChanges();
    await storage.turns.setPinned(t!.id, true);
    expect(snapshot()).toEqual(before);
    // One row changed in `turns`, nothing in the index (an FTS5 write changes several rows).
    expect(totalChanges() - changesBefore).toBe(1);
  });

  it('age cleanup removes the index rows of what it deletes, in batches', async () => {
    const now = Date.parse('2025-06-01T00:00:00Z');
    const days = (n: number) => new Date(now - n * 86_400_000).toISOString();
    const store = tuned({ now: () => now, cleanupBatch: 3 });
    await store.addMany(Array.from({ length: 8 }, (_, i) => turn(`ancient ${i}`, 'sess_a', { timestamp: days(40) })));
    const [pinned, recent] = await store.addMany([turn('ancient but pinned', 'sess_a', { timestamp: days(100) }), turn('recent ancient', 'sess_a', { timestamp: days(5) })]);
    await store.setPinned(pinned!.id, true);
    expect(await store.cleanupOlderThan(30)).toBe(8);
    expect(rawIndexMatches('ancient')).toBe(2);
    expect((await store.search('ancient', { limit: 50 })).map((r) => r.id).sort()).toEqual([pinned!.id, recent!.id].sort());
  });

  it('age cleanup stops between batches when aborted', async () => {
    const now = Date.parse('2025-06-01T00:00:00Z');
    const store = tuned({ now: () => now, cleanupBatch: 2 });
    await store.addMany(Array.from({ length: 10 }, () => turn('gone', 'sess_x', { timestamp: '2024-01-01T00:00:00Z' })));
    const controller = new AbortController();
    const running = store.cleanupOlderThan(30, { signal: controller.signal });
    // The first batch ran before the call returned; the abort stops the rest.
    controller.abort();
    expect(await running).toBe(2);
    expect(await store.count()).toBe(8);
    expect(rawIndexMatches('gone')).toBe(8);
  });
});

describe('search over the unicode61 index', () => {
  it('folds case and diacritics like the index', async () => {
    const [cafe] = await storage.turns.addMany([turn('Meet at the Café Zoë')]);
    expect((await storage.turns.search('cafe ZOE', { limit: 5 })).map((r) => r.id)).toEqual([cafe!.id]);
  });

  it('refuses more than 32 distinct words, which would each cost a frequency count', async () => {
    await storage.turns.addMany([turn('w0 w1')]);
    const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');
    // 32 distinct words (the repeats fold into them) are allowed, and all are required.
    expect(await storage.turns.search(`${words(32)} w0 W1`, { limit: 5 })).toEqual([]);
    await expect(storage.turns.search(words(33), { limit: 5 })).rejects.toThrow(RangeError);
  });

  it('finds a session\'s older turns even when the word is common everywhere', async () => {
    const small = tuned({ search: { candidates: 5 } });
    const [old] = await small.addMany([turn('common word in the quiet session', 'sess_quiet')]);
    await small.addMany(Array.from({ length: 50 }, (_, i) => turn(`common word number ${i}`, 'sess_busy')));
    expect((await small.search('common', { limit: 10, sessionId: 'sess_quiet' })).map((r) => r.id)).toEqual([old!.id]);
  });

  it('ranks only the newest matches of a word found everywhere', async () => {
    const small = tuned({ search: { candidates: 5 } });
    await small.addMany([turn('common common common', 'sess_old')]);
    const newest = (await small.addMany(Array.from({ length: 20 }, (_, i) => turn(`common word number ${i}`)))).slice(-5);
    const found = (await small.search('common', { limit: 5 })).map((r) => r.id);
    expect(found.sort()).toEqual(newest.map((t) => t.id).sort());
  });
});

describe('delete erases the text from the run that stored it', () => {
  const record = (id: string): RunRecord => ({
    run_id: id, session_id: 'sess_a', message: 'm', status: 'pending', provider: null, resolved_provider: 'offline',
    created_at: '2026-01-01T00:00:00.000Z', started_at: null, finished_at: null, response: null, error: null,
    tools_used: [], cost: { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 }, source: 'api', job_id: null, model: null, first_token_at: null,
  });
  const ev = (id: number, name: RunEventName, data: unknown) => ({ id, name, data: JSON.stringify(data) });

  /** A finished run whose answer is `answer`, and the assistant turn it stored. */
  async function answered(runId: string, answer: string, toolArgument: string) {
    await storage.runs.create(record(runId));
    await storage.runs.start(runId, '2026-01-01T00:00:01.000Z', ev(1, 'run.start', { run_id: runId }));
    await storage.runs.appendEvent(runId, { id: 2, name: 'tool.request', data: `{"args": {"text": ${JSON.stringify(toolArgument)}}}` });
    await storage.runs.finish(runId, {
      status: 'complete', finished_at: '2026-01-01T00:00:02.000Z', response: answer, error: null, tools_used: [], model: null, first_token_at: null,
      cost: { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 },
    }, ev(3, 'run.complete', { run_id: runId, response: answer }));
    const [, assistant] = await storage.turns.addMany([
      turn('the question', 'sess_a', { run_id: runId }),
      turn(answer, 'sess_a', { role: 'assistant', run_id: runId }),
    ]);
    return assistant!;
  }

  it('replaces the response and every event string equal to the text; other events stay byte for byte', async () => {
    const answer = 'the answer is forty-two';
    const assistant = await answered('run_a', answer, `${answer} and more`);
    const toolEvent = (await storage.runs.events('run_a', 1))[0]!;
    await storage.turns.delete(assistant.id);

    expect((await storage.runs.get('run_a'))!.response).toBe(ERASED_TEXT);
    const events = await storage.runs.events('run_a', 0);
    expect(JSON.parse(events[2]!.data)).toEqual({ run_id: 'run_a', response: ERASED_TEXT });
    // Only equal strings are the turn's text: a longer one that contains it is someone else's.
    expect(events[1]).toEqual(toolEvent);
    expect(events[0]!.data).toBe('{"run_id":"run_a"}');
  });

  it('leaves other runs with the same text alone', async () => {
    const answer = 'same words twice';
    const first = await answered('run_a', answer, 'x');
    await answered('run_b', answer, 'y');
    await storage.turns.delete(first.id);
    expect((await storage.runs.get('run_a'))!.response).toBe(ERASED_TEXT);
    expect((await storage.runs.get('run_b'))!.response).toBe(answer);
    expect(JSON.parse((await storage.runs.events('run_b', 2))[0]!.data).response).toBe(answer);
  });

  it('touches no run when the turn has none', async () => {
    const answer = 'an answer without a run';
    await answered('run_a', answer, 'x');
    const [loose] = await storage.turns.addMany([turn(answer, 'sess_a', { role: 'assistant' })]);
    await storage.turns.delete(loose!.id);
    expect((await storage.runs.get('run_a'))!.response).toBe(answer);
  });
});
