import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventHash, GENESIS_HASH } from '../ports/audit-chain.js';
import { AuditLog } from '../../audit/log.js';
import type { AuditEvent } from '../ports/audit.js';
import { Database } from './database.js';
import { SqliteStorage } from './index.js';
import { MIGRATIONS } from './migrations/index.js';

/** What only the SQLite audit store has: the upgrade of an existing log, its counts and its search index. */
let dir: string;
let file: string;
let storage: SqliteStorage;
let clock: number;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentd-audit-browser-'));
  file = join(dir, 'agentd.db');
  clock = Date.parse('2026-01-05T10:00:00.000Z');
});
afterEach(async () => {
  await storage?.close();
  rmSync(dir, { recursive: true, force: true });
});

const open = (options: { auditIndexing?: boolean } = {}) => {
  storage = new SqliteStorage(file, options);
  return new AuditLog(storage.audit, () => clock);
};
const sql = <T>(statement: string, ...params: unknown[]) => storage.database.db.prepare(statement).all(...params) as T[];
const counted = () => sql<{ n: number }>('SELECT ifnull(sum(n), 0) AS n FROM audit_counts_hours')[0]!.n;
const inIndex = (trigram: string) => sql('SELECT rowid FROM audit_search WHERE audit_search MATCH ?', `"${trigram}"`).length;

describe('upgrading a log written before the audit browser', () => {
  it('keeps every event, its seq and its chain, and counts and finds them', async () => {
    const before = MIGRATIONS.filter((m) => m.version < 10);
    const old = new Database(file, before);
    const insert = old.db.prepare(`INSERT INTO audit_events (id, timestamp, event_type, category, result, severity, actor, source, subsystem,
      action, session_id, task_id, detail, prev_hash, hash) VALUES (@id, @timestamp, @event_type, @category, @result, @severity, @actor,
      @source, @subsystem, @action, @session_id, @task_id, @detail, @prev_hash, @hash)`);
    let prev = GENESIS_HASH;
    for (let i = 0; i < 30; i++) {
      const event: AuditEvent = {
        id: `evt_old_${i}`, timestamp: new Date(clock + i * 1_800_000).toISOString(), event_type: i % 3 ? 'web.login' : 'network_request',
        category: i % 3 ? 'web' : 'gateway', result: i % 4 ? 'allow' : 'deny', severity: 'info', actor: null, source: `10.0.0.${i % 2}`,
        subsystem: i % 5 ? 'http' : null, action: null, session_id: null, task_id: null, detail: { i, host: `Host${i}.example` },
      };
      const hash = eventHash(prev, event);
      insert.run({ ...event, detail: JSON.stringify(event.detail), prev_hash: prev, hash });
      prev = hash;
    }
    old.close();

    const audit = open();
    expect(await audit.verify()).toEqual({ ok: true, count: 30 });
    expect(sql<{ seq: number }>('SELECT seq FROM audit_events ORDER BY seq').map((r) => r.seq)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(counted()).toBe(30);
    const all = await audit.query({ limit: 5, offset: 0 });
    expect(all.total).toBe(30);
    expect(all.events[0]!.id).toBe('evt_old_29');
    expect(all.facets.subsystem).toEqual([{ value: 'http', count: 24 }, { value: null, count: 6 }]);
    expect((await audit.query({ source: '10.0.0.0', result: 'deny', limit: 50, offset: 0 })).total).toBe(8);
    // Not indexed yet, found all the same; then indexed.
    expect((await audit.query({ q: 'HOST17.', limit: 50, offset: 0 })).total).toBe(1);
    expect(storage.audit.search.catchUp()).toBe(30);
    expect((await audit.query({ q: 'HOST17.', limit: 50, offset: 0 })).total).toBe(1);
    // The chain goes on from the upgraded head, with seq never reused.
    await audit.emit({ event_type: 'after', category: 'test', result: 'allow' });
    expect(await audit.verify()).toEqual({ ok: true, count: 31 });
  });
});

describe('the counts and the search index', () => {
  it('follow retention: no count and no index row is left for a removed event', async () => {
    const audit = open();
    for (let i = 0; i < 50; i++) {
      await audit.emit({ event_type: `gone.${i % 3}`, category: 'test', result: 'allow', detail: { marker: `zq${i}x` } });
      clock += 3_000_000;
    }
    storage.audit.search.catchUp();
    expect(inIndex('zq7')).toBeGreaterThan(0);
    const removed = await audit.prune((clock - Date.parse('2026-01-05T10:00:00.000Z') - 25 * 3_000_000) / 86_400_000);
    expect(removed).toBe(25);
    const left = sql<{ n: number }>('SELECT count(*) AS n FROM audit_events')[0]!.n;
    expect(counted()).toBe(left);
    expect(sql<{ n: number }>('SELECT ifnull(sum(n), 0) AS n FROM audit_counts_days')[0]!.n).toBe(left);
    expect(sql('SELECT * FROM audit_counts_hours WHERE n <= 0')).toEqual([]);
    expect(sql('SELECT * FROM audit_counts_days WHERE n <= 0')).toEqual([]);
    // zq7x was event 7 (removed); zq30x is kept.
    expect(inIndex('q7x')).toBe(0);
    expect(inIndex('30x')).toBe(1);
    expect((await audit.query({ q: 'zq7x', limit: 10, offset: 0 })).total).toBe(0);
    expect((await audit.query({ q: 'zq30x', limit: 10, offset: 0 })).total).toBe(1);
  });

  it('find q as the full check does, whether the stored text holds it as it is or only lower-cased', async () => {
    const audit = open();
    await audit.emit({ event_type: 'Web.Login', category: 'test', result: 'allow', detail: { city: 'ÉCOLE Straße' } });
    await audit.emit({ event_type: 'web.auth', category: 'test', result: 'allow', detail: { city: 'école', mark: '\uFFFDbc' } });
    const total = async (q: string) => (await audit.query({ q, limit: 10, offset: 0 })).total;
    for (const indexed of [false, true]) {
      if (indexed) storage.audit.search.catchUp();
      expect(await total('école')).toBe(2);
      expect(await total('straße')).toBe(1);
      expect(await total('web.log')).toBe(1);
      expect(await total('\uFFFDbc')).toBe(1);
      // A lone surrogate is a character no stored text holds, not the replacement character.
      expect(await total('\uD800bc')).toBe(0);
    }
  });

  it('are filled in the background by the service', async () => {
    const audit = open({ auditIndexing: true });
    await Promise.all(Array.from({ length: 300 }, (_, i) => audit.emit({ event_type: 'bg', category: 'test', result: 'allow', detail: { marker: `kqz${i}` } })));
    const deadline = Date.now() + 10_000;
    while (storage.audit.search.indexedThrough < 300 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(storage.audit.search.indexedThrough).toBe(300);
    expect(inIndex('kqz')).toBe(300);
  });

  it('stay right when a write fails after its new kind was added, and when a whole batch rolls back', async () => {
    const audit = open();
    const broken = { ...(await audit.emit({ event_type: 'seen', category: 'test', result: 'allow' })), event_type: 'fresh.kind', id: null };
    await expect(storage.audit.append(broken as unknown as AuditEvent)).rejects.toThrow(/NOT NULL/);
    await audit.emit({ event_type: 'fresh.kind', category: 'test', result: 'allow' });
    expect(await audit.query({ event_type: 'fresh.kind', limit: 10, offset: 0 })).toMatchObject({ total: 1, facets: { category: [{ value: 'test', count: 1 }] } });

    // A deferred foreign key fails only at COMMIT: the batch, its new kinds and its counts roll back.
    storage.database.db.exec(`CREATE TABLE parent (id INTEGER PRIMARY KEY);
      CREATE TABLE child (pid INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED);`);
    const batch = await Promise.allSettled([
      audit.emit({ event_type: 'rolled.back', category: 'test', result: 'deny' }),
      storage.uow.run(() => storage.database.db.prepare('INSERT INTO child (pid) VALUES (42)').run()),
    ]);
    expect(batch.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    await audit.emit({ event_type: 'rolled.back', category: 'test', result: 'deny' });
    expect(await audit.query({ event_type: 'rolled.back', limit: 10, offset: 0 })).toMatchObject({ total: 1 });
    expect(counted()).toBe(3);
    expect(await audit.verify()).toEqual({ ok: true, count: 3 });
  });
});
