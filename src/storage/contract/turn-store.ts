import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NewTurn, TurnStore } from '../ports/turns.js';

/**
 * The behaviour every `TurnStore` backend must have, through the interface only. A backend's test
 * file calls `describeTurnStore('name', open)`; `open` builds an empty store whose clock (default
 * timestamps, age cleanup) is `clock.now`.
 */
export type OpenTurnStore = (clock: { now: () => number }) => Promise<{ store: TurnStore; close(): Promise<void> }>;

const NOW = Date.parse('2025-06-01T00:00:00.000Z');
const DAY_MS = 86_400_000;
const daysAgo = (n: number) => new Date(NOW - n * DAY_MS).toISOString();

const turn = (content: string, session_id = 'sess_a', extra: Partial<NewTurn> = {}): NewTurn => ({
  session_id, role: 'user', content, provider: 'offline', ...extra,
});

export function describeTurnStore(backend: string, open: OpenTurnStore): void {
  describe(`TurnStore contract (${backend})`, () => {
    let store: TurnStore;
    let close: () => Promise<void>;

    beforeEach(async () => {
      ({ store, close } = await open({ now: () => NOW }));
    });
    afterEach(async () => {
      await close();
    });

    /** Contents of the search hits, sorted (search order is tested separately). */
    const found = async (query: string, options: { limit?: number; sessionId?: string } = {}) => {
      const results = await store.search(query, { limit: options.limit ?? 50, sessionId: options.sessionId });
      const turns = await Promise.all(results.map((r) => store.get(r.id)));
      return turns.map((t) => t!.content).sort();
    };

    describe('addMany, get, count', () => {
      it('stores every field and reads it back', async () => {
        const [added] = await store.addMany([
          turn('hello there', 'sess_a', { role: 'assistant', provider: null, timestamp: '2024-05-01T10:00:00Z' }),
        ]);
        const expected = {
          id: added!.id, session_id: 'sess_a', role: 'assistant', content: 'hello there', provider: null,
          timestamp: '2024-05-01T10:00:00.000Z', pinned: false,
        };
        expect(added).toEqual(expected);
        expect(await store.get(added!.id)).toEqual(expected);
        expect(await store.count()).toBe(1);
      });

      it('stamps a turn without a timestamp with the store clock', async () => {
        const [added] = await store.addMany([turn('now')]);
        expect(added!.timestamp).toBe(new Date(NOW).toISOString());
      });

      it('gives every turn its own id, in the order given', async () => {
        const added = await store.addMany([turn('one'), turn('two'), turn('three')]);
        expect(added.map((t) => t.content)).toEqual(['one', 'two', 'three']);
        expect(new Set(added.map((t) => t.id)).size).toBe(3);
        expect(await store.count()).toBe(3);
      });

      it('stores all turns or none: a bad role in the second stores neither', async () => {
        await store.addMany([turn('kept zebra')]);
        await expect(store.addMany([turn('first zebra'), { ...turn('second zebra'), role: 'robot' as never }])).rejects.toThrow();
        expect(await store.count()).toBe(1);
        expect(await found('zebra')).toEqual(['kept zebra']);
        expect((await store.history('sess_a', 10)).map((t) => t.content)).toEqual(['kept zebra']);
      });

      it('returns null for an unknown id and counts nothing in an empty store', async () => {
        expect(await store.get('turn_unknown')).toBeNull();
        expect(await store.count()).toBe(0);
      });
    });

    describe('history', () => {
      it('returns the most recent turns of one session, oldest first', async () => {
        await store.addMany([1, 2, 3, 4, 5].map((i) => turn(`message ${i}`)));
        await store.addMany([turn('elsewhere', 'sess_b')]);
        await store.addMany([turn('message 6')]);
        const history = await store.history('sess_a', 3);
        expect(history.map((t) => t.content)).toEqual(['message 4', 'message 5', 'message 6']);
        expect((await store.history('sess_b', 10)).map((t) => t.content)).toEqual(['elsewhere']);
        expect(await store.history('sess_unknown', 10)).toEqual([]);
      });
    });

    describe('search', () => {
      it('requires every word, in any order, ignoring case', async () => {
        const [both] = await store.addMany([turn('the quick brown fox jumps'), turn('a quick reply'), turn('fox news')]);
        const results = await store.search('fox QUICK', { limit: 10 });
        expect(results.map((r) => r.id)).toEqual([both!.id]);
        expect(results[0]).toMatchObject({
          id: both!.id, session_id: 'sess_a', role: 'user', provider: 'offline', pinned: false, timestamp: both!.timestamp,
          content: 'the quick brown fox jumps',
        });
        expect(results[0]!.score).toBeGreaterThan(0);
      });

      it('ranks best first', async () => {
        const [, dense] = await store.addMany([
          turn('the quick brown fox jumps over the lazy dog near the river bank today'),
          turn('fox fox fox'),
          turn('a fox and a hound went out hunting in the long grass of the meadow'),
        ]);
        const ranked = await store.search('fox', { limit: 10 });
        expect(ranked).toHaveLength(3);
        expect(ranked[0]!.id).toBe(dense!.id);
        const scores = ranked.map((r) => r.score);
        expect(scores).toEqual([...scores].sort((a, b) => b - a));
      });

      it('scopes to one session', async () => {
        await store.addMany([turn('shared topic alpha', 'sess_a'), turn('shared topic beta', 'sess_b')]);
        expect(await found('shared topic')).toEqual(['shared topic alpha', 'shared topic beta']);
        expect(await found('shared topic', { sessionId: 'sess_b' })).toEqual(['shared topic beta']);
        expect(await found('alpha', { sessionId: 'sess_b' })).toEqual([]);
        expect(await found('shared', { sessionId: 'sess_unknown' })).toEqual([]);
      });

      it('respects the limit', async () => {
        await store.addMany(Array.from({ length: 20 }, (_, i) => turn(`repeated word ${i}`)));
        expect(await store.search('repeated', { limit: 7 })).toHaveLength(7);
        expect(await store.search('repeated', { limit: 50 })).toHaveLength(20);
      });

      it('previews an excerpt of at most 200 characters around the first match', async () => {
        const filler = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');
        await store.addMany([turn(`${filler(150)} the needle is here ${filler(150)} needle again`), turn('short needle text')]);
        const results = await store.search('needle', { limit: 5 });
        const previews = results.map((r) => r.preview).sort((a, b) => a.length - b.length);
        expect(previews[0]).toBe('short needle text');
        expect(previews[1]!.length).toBeLessThanOrEqual(200);
        expect(previews[1]).toContain('the needle is here');
        // The preview is an excerpt; the result still carries the whole turn.
        const long = results.find((r) => r.preview !== 'short needle text')!;
        expect(long.content).toBe(`${filler(150)} the needle is here ${filler(150)} needle again`);
      });

      // Query text is never the backend's query syntax: operators, quotes and column filters are
      // plain words (or nothing, when they are punctuation).
      it.each([
        ['prefix star', 'alph*', ['alph star']],
        ['unbalanced quote', '"alpha', ['alpha beta', 'alpha or delta', 'alpha is not beta', 'alpha near beta', 'the body of alpha']],
        ['quoted phrase: words in any order', '"beta alpha"', ['alpha beta', 'alpha is not beta', 'alpha near beta']],
        ['NEAR group', 'NEAR(alpha beta)', ['alpha near beta']],
        ['NEAR alone', 'NEAR(', ['alpha near beta']],
        ['minus', 'alpha -beta', ['alpha beta', 'alpha is not beta', 'alpha near beta']],
        ['column filter', 'body:alpha', ['the body of alpha']],
        ['colon pair', 'a:b', ['a b c']],
        ['OR', 'alpha OR delta', ['alpha or delta']],
        ['NOT', 'alpha NOT beta', ['alpha is not beta']],
        ['AND', 'oranges AND apples', ['apples and oranges']],
        ['caret and plus', '^alpha + beta', ['alpha beta', 'alpha is not beta', 'alpha near beta']],
        ['SQL quote', "alpha' OR '1'='1", []],
      ])('treats %s as plain words: %s', async (_name, query, expected) => {
        await store.addMany([
          'alpha beta', 'alpha or delta', 'delta only', 'alpha is not beta', 'alpha near beta', 'the body of alpha',
          'a b c', 'apples and oranges', 'alph star', 'apples oranges',
        ].map((content) => turn(content)));
        expect(await found(query)).toEqual([...expected].sort());
      });

      it.each(['"', '***', '- : ""', '()', '   ', '', '^', '"*"'])('gives no results for a query without words (%j)', async (query) => {
        await store.addMany([turn('near and or not')]);
        expect(await found('near')).toEqual(['near and or not']);
        expect(await store.search(query, { limit: 10 })).toEqual([]);
      });
    });

    describe('setPinned', () => {
      it('pins and unpins, and search reports it', async () => {
        const [t] = await store.addMany([turn('pin me')]);
        expect(await store.setPinned(t!.id, true)).toEqual({ ...t, pinned: true });
        expect((await store.get(t!.id))!.pinned).toBe(true);
        expect((await store.search('pin', { limit: 1 }))[0]!.pinned).toBe(true);
        expect(await store.setPinned(t!.id, false)).toEqual({ ...t, pinned: false });
        expect((await store.get(t!.id))!.pinned).toBe(false);
      });

      it('returns null for an unknown id', async () => {
        expect(await store.setPinned('turn_unknown', true)).toBeNull();
      });
    });

    describe('delete', () => {
      it('returns the turn and removes it from get, history, search and count', async () => {
        const [doomed, kept] = await store.addMany([turn('forget this zanzibar'), turn('keep this')]);
        expect(await store.delete(doomed!.id)).toEqual(doomed);
        expect(await store.get(doomed!.id)).toBeNull();
        expect(await store.search('zanzibar', { limit: 10 })).toEqual([]);
        expect(await found('this')).toEqual(['keep this']);
        expect((await store.history('sess_a', 10)).map((t) => t.id)).toEqual([kept!.id]);
        expect(await store.count()).toBe(1);
      });

      it('returns null for an unknown or already deleted id', async () => {
        const [t] = await store.addMany([turn('once')]);
        expect(await store.delete('turn_unknown')).toBeNull();
        expect(await store.delete(t!.id)).not.toBeNull();
        expect(await store.delete(t!.id)).toBeNull();
        expect(await store.count()).toBe(0);
      });

      it('deletes a pinned turn too', async () => {
        const [t] = await store.addMany([turn('pinned but asked away')]);
        await store.setPinned(t!.id, true);
        expect(await store.delete(t!.id)).toEqual({ ...t, pinned: true });
        expect(await store.count()).toBe(0);
      });
    });

    describe('cleanupOlderThan', () => {
      it('deletes unpinned turns older than the age, sparing pinned and recent ones', async () => {
        const old = await store.addMany(Array.from({ length: 12 }, (_, i) => turn(`ancient ${i}`, 'sess_a', { timestamp: daysAgo(40) })));
        const [pinned] = await store.addMany([turn('ancient but pinned', 'sess_b', { timestamp: daysAgo(100) })]);
        await store.setPinned(pinned!.id, true);
        const [recent] = await store.addMany([turn('recent ancient', 'sess_a', { timestamp: daysAgo(5) })]);

        expect(await store.cleanupOlderThan(30)).toBe(old.length);
        expect(await store.count()).toBe(2);
        expect(await store.get(old[0]!.id)).toBeNull();
        expect((await store.history('sess_a', 50)).map((t) => t.id)).toEqual([recent!.id]);
        expect(await found('ancient')).toEqual(['ancient but pinned', 'recent ancient']);
      });

      it('respects the number of days', async () => {
        await store.addMany([turn('ten days', 'sess_a', { timestamp: daysAgo(10) }), turn('three days', 'sess_a', { timestamp: daysAgo(3) })]);
        expect(await store.cleanupOlderThan(30)).toBe(0);
        expect(await store.cleanupOlderThan(7)).toBe(1);
        expect((await store.history('sess_a', 10)).map((t) => t.content)).toEqual(['three days']);
      });

      it('refuses an age that is not positive (it would delete everything)', async () => {
        await store.addMany([turn('today')]);
        await expect(store.cleanupOlderThan(0)).rejects.toThrow();
        expect(await store.count()).toBe(1);
      });

      it('removes nothing when the signal is already aborted', async () => {
        await store.addMany(Array.from({ length: 5 }, (_, i) => turn(`old ${i}`, 'sess_a', { timestamp: daysAgo(40) })));
        const controller = new AbortController();
        controller.abort();
        expect(await store.cleanupOlderThan(30, { signal: controller.signal })).toBe(0);
        expect(await store.count()).toBe(5);
      });
    });
  });
}
