import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Database } from '../storage/database.js';
import { readVarints, wordCounter } from './ranking.js';
import { SqliteTurnStore } from './sqlite-turn-store.js';

let dir: string;
let database: Database;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentd-search-'));
  database = new Database(join(dir, 'agentd.db'));
});

afterEach(() => {
  database.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A small corpus with uneven lengths and repeats, so every part of bm25 matters. */
function seed(store: SqliteTurnStore): void {
  const words = ['river', 'stone', 'Café', 'lamp', 'river', 'cloud', 'stone', 'river', 'ember', 'lamp'];
  store.addMany(Array.from({ length: 80 }, (_, i) => ({
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
  ])('%s (session %s)', (query, sessionId) => {
    const fts = new SqliteTurnStore(database);
    seed(fts);
    // Every word counts as "common" here, so the second path ranks; a sample larger than the
    // corpus makes its frequencies exact, so its scores must be FTS5's.
    const here = new SqliteTurnStore(database, { search: { ftsRankMaxDocs: 0, frequencySampleHits: 1_000 } });
    const expected = fts.search(query, { limit: 100, sessionId });
    const actual = here.search(query, { limit: 100, sessionId });
    expect(expected.length).toBeGreaterThan(0);
    expect(actual.map((r) => r.id)).toEqual(expected.map((r) => r.id));
    actual.forEach((r, i) => expect(r.score).toBeCloseTo(expected[i]!.score, 9));
    expect(actual.map((r) => r.preview)).toEqual(expected.map((r) => r.preview));
  });

  it('estimates frequencies from the newest matches and still returns every match in the candidate set', () => {
    const store = new SqliteTurnStore(database, { search: { ftsRankMaxDocs: 2, frequencySampleHits: 3 } });
    seed(store);
    const exact = new SqliteTurnStore(database);
    const expected = exact.search('river', { limit: 100 }).map((r) => r.id).sort();
    expect(store.search('river', { limit: 100 }).map((r) => r.id).sort()).toEqual(expected);
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
