import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Database } from '../storage/database.js';
import { SqliteTurnStore } from './sqlite-turn-store.js';
import type { NewTurn } from './types.js';

let dir: string;
let database: Database;
let store: SqliteTurnStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentd-memory-'));
  database = new Database(join(dir, 'agentd.db'));
  store = new SqliteTurnStore(database);
});

afterEach(() => {
  database.close();
  rmSync(dir, { recursive: true, force: true });
});

const turn = (content: string, session_id = 'sess_a', extra: Partial<NewTurn> = {}): NewTurn => ({
  session_id, role: 'user', content, provider: 'offline', ...extra,
});

/** Index rows matching a raw FTS5 expression, bypassing the store's join to `turns`. */
const rawIndexMatches = (expression: string): number =>
  (database.db.prepare('SELECT count(*) AS n FROM turns_fts WHERE turns_fts MATCH ?').get(expression) as { n: number }).n;

describe('add, get, history', () => {
  it('stores every field and reads it back', () => {
    const added = store.add(turn('hello there', 'sess_a', { role: 'assistant', provider: null, timestamp: '2024-05-01T10:00:00Z' }));
    expect(added.id).toMatch(/^turn_/);
    expect(store.get(added.id)).toEqual({
      id: added.id, session_id: 'sess_a', role: 'assistant', content: 'hello there', provider: null,
      timestamp: '2024-05-01T10:00:00.000Z', pinned: false,
    });
    expect(store.get('turn_unknown')).toBeNull();
    expect(store.count()).toBe(1);
  });

  it('returns the most recent turns of one session, oldest first', () => {
    for (let i = 1; i <= 5; i++) store.add(turn(`message ${i}`));
    store.add(turn('elsewhere', 'sess_b'));
    const history = store.history('sess_a', 3);
    expect(history.map((t) => t.content)).toEqual(['message 3', 'message 4', 'message 5']);
    expect(history.every((t) => typeof t.id === 'string' && t.pinned === false)).toBe(true);
  });

  it('refuses bad input', () => {
    expect(() => store.add(turn('x', ''))).toThrow(/session_id/);
    expect(() => store.add({ ...turn('x'), role: 'robot' as never })).toThrow(/role/);
    expect(() => store.add(turn('x', 'sess_a', { timestamp: 'yesterday' }))).toThrow(/timestamp/);
    expect(() => store.history('sess_a', 0)).toThrow(/limit/);
  });

  it('addMany stores all turns in one transaction or none', () => {
    expect(store.addMany([turn('one'), turn('two')])).toHaveLength(2);
    expect(() => store.addMany([turn('three'), { ...turn('four'), role: 'robot' as never }])).toThrow();
    expect(store.count()).toBe(2);
  });
});

describe('search', () => {
  it('requires every word, in any order, and ranks by relevance', () => {
    const both = store.add(turn('the quick brown fox jumps'));
    store.add(turn('a quick reply'));
    store.add(turn('fox news'));
    const results = store.search('fox QUICK', { limit: 10 });
    expect(results.map((r) => r.id)).toEqual([both.id]);
    expect(results[0]).toMatchObject({ session_id: 'sess_a', role: 'user', provider: 'offline', pinned: false });
    expect(results[0]!.score).toBeGreaterThan(0);

    const dense = store.add(turn('fox fox fox'));
    const ranked = store.search('fox', { limit: 10 });
    expect(ranked[0]!.id).toBe(dense.id);
    expect(ranked.map((r) => r.score)).toEqual([...ranked.map((r) => r.score)].sort((a, b) => b - a));
  });

  it('folds case and diacritics like the index', () => {
    const cafe = store.add(turn('Meet at the Café Zoë'));
    expect(store.search('cafe zoe', { limit: 5 }).map((r) => r.id)).toEqual([cafe.id]);
  });

  it('scopes to one session', () => {
    const a = store.add(turn('shared topic alpha', 'sess_a'));
    const b = store.add(turn('shared topic beta', 'sess_b'));
    expect(store.search('shared topic', { limit: 10 }).map((r) => r.id).sort()).toEqual([a.id, b.id].sort());
    expect(store.search('shared topic', { limit: 10, sessionId: 'sess_b' }).map((r) => r.id)).toEqual([b.id]);
    expect(store.search('alpha', { limit: 10, sessionId: 'sess_b' })).toEqual([]);
    expect(store.search('shared', { limit: 10, sessionId: 'sess_unknown' })).toEqual([]);
  });

  it('finds a session\'s older turns even when the word is common everywhere', () => {
    const small = new SqliteTurnStore(database, { search: { candidates: 5 } });
    const old = small.add(turn('common word in the quiet session', 'sess_quiet'));
    small.addMany(Array.from({ length: 50 }, (_, i) => turn(`common word number ${i}`, 'sess_busy')));
    expect(small.search('common', { limit: 10, sessionId: 'sess_quiet' }).map((r) => r.id)).toEqual([old.id]);
  });

  it('ranks only the newest matches of a word found everywhere', () => {
    const small = new SqliteTurnStore(database, { search: { candidates: 5 } });
    small.add(turn('common common common', 'sess_old'));
    const newest = small.addMany(Array.from({ length: 20 }, (_, i) => turn(`common word number ${i}`))).slice(-5);
    const found = small.search('common', { limit: 5 }).map((r) => r.id);
    expect(found.sort()).toEqual(newest.map((t) => t.id).sort());
  });

  it('refuses more than 32 distinct words, which would each cost a frequency count', () => {
    store.add(turn('w0 w1'));
    const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');
    expect(store.search(`${words(32)} w0 W1`, { limit: 5 })).toEqual([]);
    expect(() => store.search(words(33), { limit: 5 })).toThrow(RangeError);
  });

  it('respects the limit', () => {
    store.addMany(Array.from({ length: 20 }, (_, i) => turn(`repeated word ${i}`)));
    expect(store.search('repeated', { limit: 7 })).toHaveLength(7);
  });
});

describe('search treats FTS5 syntax as literal words', () => {
  it.each([
    ['prefix star', 'alph*', ['alph star']],
    ['unbalanced quote', '"alpha', ['alpha beta', 'alpha or delta', 'alpha is not beta', 'alpha near beta', 'the body of alpha']],
    ['quoted phrase words in any order', '"beta alpha"', ['alpha beta', 'alpha is not beta', 'alpha near beta']],
    ['NEAR group', 'NEAR(alpha beta)', ['alpha near beta']],
    ['NEAR alone', 'NEAR(', ['alpha near beta']],
    ['minus', 'alpha -beta', ['alpha beta', 'alpha is not beta', 'alpha near beta']],
    ['column filter', 'body:alpha', ['the body of alpha']],
    ['colon pair', 'a:b', ['a b c']],
    ['OR', 'alpha OR delta', ['alpha or delta']],
    ['NOT', 'alpha NOT beta', ['alpha is not beta']],
    ['AND', 'oranges AND apples', ['apples and oranges']],
    ['caret and plus', '^alpha + beta', ['alpha beta', 'alpha is not beta', 'alpha near beta']],
  ])('%s: %s', (_name, query, expected) => {
    for (const content of [
      'alpha beta', 'alpha or delta', 'delta only', 'alpha is not beta', 'alpha near beta', 'the body of alpha',
      'a b c', 'apples and oranges', 'alph star', 'apples oranges',
    ]) store.add(turn(content));
    const found = store.search(query, { limit: 50 }).map((r) => store.get(r.id)!.content);
    expect(found.sort()).toEqual([...expected].sort());
  });

  it.each(['"', '***', '- : ""', '()', '   ', '', '^', '"*"'])('a query without words (%j) gives no results', (query) => {
    store.add(turn('near and or not'));
    expect(store.search(query, { limit: 10 })).toEqual([]);
  });
});

describe('preview', () => {
  it('is an excerpt of at most 200 characters around the first match', () => {
    const filler = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');
    const content = `${filler(150)} the needle is here ${filler(150)} needle again`;
    const [result] = store.search('needle', { limit: 1 });
    expect(result).toBeUndefined();
    store.add(turn(content));
    const [found] = store.search('needle', { limit: 1 });
    expect(found!.preview.length).toBeLessThanOrEqual(200);
    expect(found!.preview).toContain('the needle is here');
    expect(found!.preview.startsWith('…')).toBe(true);
    expect(found!.preview.endsWith('…')).toBe(true);
  });

  it('is the whole text when it is short', () => {
    store.add(turn('short\n\n text  with   spaces'));
    expect(store.search('text', { limit: 1 })[0]!.preview).toBe('short text with spaces');
  });
});

describe('pin', () => {
  it('round-trips and reports unknown ids', () => {
    const t = store.add(turn('pin me'));
    expect(store.setPinned(t.id, true)).toMatchObject({ id: t.id, pinned: true });
    expect(store.get(t.id)!.pinned).toBe(true);
    expect(store.search('pin', { limit: 1 })[0]!.pinned).toBe(true);
    expect(store.setPinned(t.id, false)).toMatchObject({ pinned: false });
    expect(store.setPinned('turn_unknown', true)).toBeNull();
  });

  it('does not touch the index row', () => {
    const t = store.add(turn('indexed words stay put'));
    store.add(turn('another turn'));
    const snapshot = () =>
      ['turns_fts_data', 'turns_fts_idx', 'turns_fts_docsize'].map((table) =>
        database.db.prepare(`SELECT * FROM ${table} ORDER BY 1, 2`).all());
    const changesBefore = database.db.prepare('SELECT total_changes() AS n').get() as { n: number };
    const before = snapshot();
    store.setPinned(t.id, true);
    const changesAfter = database.db.prepare('SELECT total_changes() AS n').get() as { n: number };
    expect(snapshot()).toEqual(before);
    // One row changed in `turns`, nothing in the index (an FTS5 write changes several rows).
    expect(changesAfter.n - changesBefore.n).toBe(1);
  });
});

describe('delete and upsert keep the index in step', () => {
  it('delete removes the turn from search, history and the index', () => {
    const t = store.add(turn('forget this zanzibar'));
    const kept = store.add(turn('keep this'));
    expect(store.delete(t.id)).toBe(true);
    expect(store.delete(t.id)).toBe(false);
    expect(store.get(t.id)).toBeNull();
    expect(store.search('zanzibar', { limit: 10 })).toEqual([]);
    expect(rawIndexMatches('zanzibar')).toBe(0);
    expect(store.history('sess_a', 10).map((x) => x.id)).toEqual([kept.id]);
  });

  it('upsert replaces the content and its index row, keeping the pin', () => {
    const first = store.upsert({ id: 'turn_fixed', ...turn('original wording') });
    expect(first.id).toBe('turn_fixed');
    store.setPinned('turn_fixed', true);
    const second = store.upsert({ id: 'turn_fixed', ...turn('revised phrasing', 'sess_b') });
    expect(second).toMatchObject({ id: 'turn_fixed', content: 'revised phrasing', session_id: 'sess_b', pinned: true });
    expect(store.count()).toBe(1);
    expect(rawIndexMatches('original')).toBe(0);
    expect(rawIndexMatches('revised')).toBe(1);
    expect(store.search('revised', { limit: 5, sessionId: 'sess_a' })).toEqual([]);
    expect(store.search('revised', { limit: 5, sessionId: 'sess_b' }).map((r) => r.id)).toEqual(['turn_fixed']);
  });

  it('keeps the index in step through a mix of writes', () => {
    const ids = store.addMany(Array.from({ length: 30 }, (_, i) => turn(`entry ${i} ${i % 3 === 0 ? 'fizz' : 'plain'}`))).map((t) => t.id);
    for (const id of ids.slice(0, 9)) store.delete(id);
    store.upsert({ id: ids[12]!, ...turn('entry rewritten fizz') });
    store.upsert({ id: ids[15]!, ...turn('entry rewritten plain') });
    const withFizz = store.history('sess_a', 100).filter((t) => /\bfizz\b/.test(t.content)).length;
    expect(rawIndexMatches('fizz')).toBe(withFizz);
    expect(rawIndexMatches('entry')).toBe(store.count());
    expect(store.count()).toBe((database.db.prepare('SELECT count(*) AS n FROM turns').get() as { n: number }).n);
    expect(store.count()).toBe(21);
    expect(store.search('fizz', { limit: 100 })).toHaveLength(withFizz);
  });
});

describe('cleanup', () => {
  const days = (n: number) => new Date(Date.parse('2025-06-01T00:00:00Z') - n * 86_400_000).toISOString();

  it('age cleanup deletes old unpinned turns in batches and keeps pinned ones', async () => {
    const clocked = new SqliteTurnStore(database, { now: () => Date.parse('2025-06-01T00:00:00Z'), cleanupBatch: 3 });
    const old = clocked.addMany(Array.from({ length: 8 }, (_, i) => turn(`ancient ${i}`, 'sess_a', { timestamp: days(40) })));
    const pinned = clocked.add(turn('ancient but pinned', 'sess_a', { timestamp: days(100) }));
    clocked.setPinned(pinned.id, true);
    const recent = clocked.add(turn('recent ancient', 'sess_a', { timestamp: days(5) }));
    expect(await clocked.cleanupOlderThan(30)).toBe(old.length);
    expect(clocked.history('sess_a', 50).map((t) => t.id)).toEqual([pinned.id, recent.id]);
    expect(clocked.search('ancient', { limit: 50 }).map((r) => r.id).sort()).toEqual([pinned.id, recent.id].sort());
    expect(rawIndexMatches('ancient')).toBe(2);
    await expect(clocked.cleanupOlderThan(0)).rejects.toThrow(RangeError);
  });

  it('cleanupSessions deletes unpinned turns of those sessions only', async () => {
    const small = new SqliteTurnStore(database, { cleanupBatch: 2 });
    small.addMany(Array.from({ length: 5 }, (_, i) => turn(`ended ${i}`, 'sess_ended')));
    const keep = small.add(turn('ended but pinned', 'sess_ended'));
    small.setPinned(keep.id, true);
    const other = small.add(turn('ended elsewhere', 'sess_other'));
    expect(await small.cleanupSessions(['sess_ended', 'sess_ended', 'sess_none'])).toBe(5);
    expect(small.history('sess_ended', 50).map((t) => t.id)).toEqual([keep.id]);
    expect(small.history('sess_other', 50).map((t) => t.id)).toEqual([other.id]);
    expect(rawIndexMatches('ended')).toBe(2);
  });

  it('stops between batches when aborted', async () => {
    const small = new SqliteTurnStore(database, { cleanupBatch: 2 });
    small.addMany(Array.from({ length: 10 }, () => turn('gone', 'sess_x')));
    const controller = new AbortController();
    const running = small.cleanupSessions(['sess_x'], { signal: controller.signal });
    controller.abort();
    expect(await running).toBe(2);
    expect(small.count()).toBe(8);
  });
});
