import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { SqliteTurnStore } from '../src/memory/sqlite-turn-store.js';
import { Database } from '../src/storage/database.js';

let dir: string;
let path: string;
let database: Database;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentd-memory-file-'));
  path = join(dir, 'agentd.db');
  database = new Database(path);
});

afterEach(() => {
  database.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Every byte SQLite has on disk for this database, after moving the WAL into the main file. */
function fileBytes(): Buffer {
  database.db.pragma('wal_checkpoint(TRUNCATE)');
  const wal = `${path}-wal`;
  expect(existsSync(wal) ? statSync(wal).size : 0).toBe(0);
  return readFileSync(path);
}

it('a deleted turn\'s text does not remain anywhere in the database file', () => {
  const store = new SqliteTurnStore(database);
  const marker = 'qzxvmarkerjwkp';
  // Neighbours on the same pages, so the deleted cells sit between live ones.
  store.addMany(Array.from({ length: 200 }, (_, i) => ({
    session_id: 'sess_a', role: 'user' as const, provider: null, content: `ordinary neighbour text number ${i}`,
  })));
  const doomed = store.add({ session_id: 'sess_a', role: 'assistant', provider: null, content: `secret plan ${marker} ends` });
  // A long turn spills into overflow pages, which secure_delete must zero as well.
  const long = store.add({ session_id: 'sess_a', role: 'user', provider: null, content: `${'padding '.repeat(2000)}${marker}2` });
  store.addMany(Array.from({ length: 200 }, (_, i) => ({
    session_id: 'sess_a', role: 'user' as const, provider: null, content: `later neighbour ${i}`,
  })));
  expect(fileBytes().includes(marker)).toBe(true);

  expect(store.delete(doomed.id)).toBe(true);
  expect(store.delete(long.id)).toBe(true);
  expect(store.search(marker, { limit: 5 })).toEqual([]);
  expect(store.search(`${marker}2`, { limit: 5 })).toEqual([]);
  expect(fileBytes().includes(marker)).toBe(false);
  expect(store.search('neighbour', { limit: 500 })).toHaveLength(400);
});

it('text replaced by an upsert and text removed by age cleanup do not remain either', async () => {
  const store = new SqliteTurnStore(database, { now: () => Date.parse('2025-01-31T00:00:00Z') });
  store.upsert({ id: 'turn_edit', session_id: 'sess_a', role: 'user', provider: null, content: 'draft wqpxfirstdraft' });
  store.upsert({ id: 'turn_edit', session_id: 'sess_a', role: 'user', provider: null, content: 'final wording' });
  store.add({ session_id: 'sess_a', role: 'user', provider: null, content: 'stale wqpxexpired', timestamp: '2024-01-01T00:00:00Z' });
  expect(await store.cleanupOlderThan(30)).toBe(1);
  const bytes = fileBytes();
  expect(bytes.includes('wqpxfirstdraft')).toBe(false);
  expect(bytes.includes('wqpxexpired')).toBe(false);
  expect(bytes.includes('final wording')).toBe(true);
});
