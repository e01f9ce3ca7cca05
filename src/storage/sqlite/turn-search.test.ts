import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteStorage } from './index.js';
import { readVarints, wordCounter } from './turn-ranking.js';
import { SqliteTurnStore, type SqliteTurnStoreOptions } from './turn-store.js';

let storage: SqliteStorage;

beforeEach(() => {
  storage = new SqliteStorage(':memory:');
});

afterEach(async () => {
  await storage.close();
});

/** A store on the shared database with other search knobs: both read the same turns. */
const tuned = (search: SqliteTurnStoreOptions['search'] = {}) => new SqliteTurnStore(storage.database, storage.uow, { search });

/** A small corpus with uneven lengths and repeats, so every part of bm25 matters. */
async function seed(store: SqliteTurnStore): Promise<void> {
  const words = ['river', 'stone', 'Café', 'lamp', 'river', 'cloud', 'stone', 'river', 'ember', 'lamp'];
  await store.addMany(Array.from({ length: 80 }, (_, i) => ({
    session_id: `sess_${i % 4}`,
    role: 'user' as const,
    provider: null,
    content: Array.from({ length: 3 + ((i * 7) % 23) }, (_, j) => words[(i * 3 + j * j) % words.length]).join(' '),
  })));
}

describe('ranking computed here agrees with FTS5 bm25()', () => {
  it.each([
    ['river', undefined],
    ['stone lamp', undefined],
    ['cafe river', undefined],
    ['ember', 'sess_2'],
    ['river cloud', 'sess_1'],
  ])('%s (session %s)', async (query, sessionId) => {
    const fts = tuned();
    await seed(fts);
    // Every word counts as "common" here, so the second path ranks; a sample larger than the
    // corpus makes its frequencies exact, so its scores must be FTS5's.
    const here = tuned({ ftsRankMaxDocs: 0, frequencySampleHits: 1_000 });
    const expected = await fts.search(query, { limit: 100, sessionId });
    const actual = await here.search(query, { limit: 100, sessionId });
    expect(expected.length).toBeGreaterThan(0);
    expect(actual.map((r) => r.id)).toEqual(expected.map((r) => r.id));
    actual.forEach((r, i) => expect(r.score).toBeCloseTo(expected[i]!.score, 9));
    expect(actual.map((r) => r.preview)).toEqual(expected.map((r) => r.preview));
  });

  it('estimates frequencies from the newest matches and still returns every match in the candidate set', async () => {
    const store = tuned({ ftsRankMaxDocs: 2, frequencySampleHits: 3 });
    await seed(store);
    const expected = (await tuned().search('river', { limit: 100 })).map((r) => r.id).sort();
    expect(expected.length).toBeGreaterThan(3);
    expect((await store.search('river', { limit: 100 })).map((r) => r.id).sort()).toEqual(expected);
  });
});

describe('ranking helpers', () => {
  it('reads SQLite varints, including multi-byte and nine-byte ones', () => {
    expect(readVarints(Uint8Array.from([0x05, 0x81, 0x00, 0xff, 0x7f]))).toEqual([5, 128, 16383]);
    const nine = Uint8Array.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x81, 0x01]);
    expect(readVarints(nine)).toEqual([2 ** 8 + 1]);
  });

  it('counts whole words, folded, never parts of words', () => {
    const count = wordCounter(['cafe', 'Art', 'x.y']);
    expect(count('Café art CAFE cafeteria artist, art-deco! x.y xay')).toEqual([2, 2, 1]);
  });
});
