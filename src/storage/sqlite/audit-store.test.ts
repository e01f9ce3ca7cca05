import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../audit/log.js';
import { SqliteStorage } from './index.js';

let dir: string;
let file: string;
let storage: SqliteStorage;
let audit: AuditLog;
let clock: number;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentd-audit-'));
  file = join(dir, 'agentd.db');
  storage = new SqliteStorage(file);
  clock = Date.parse('2026-01-01T00:00:00.000Z');
  audit = new AuditLog(storage.audit, () => clock);
});

afterEach(async () => {
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
});

const sql = (statement: string) => storage.database.db.prepare(statement).run();
const emit = async (n: number, type = 'e') => {
  for (let i = 0; i < n; i++) {
    await audit.emit({ event_type: `${type}${i}`, category: 'test', result: 'deny', detail: { i } });
    clock += 1000;
  }
};
/** Every byte SQLite has on disk for this home: the file, its WAL and shared memory. */
const folderBytes = () => Buffer.concat(readdirSync(dir).map((name) => readFileSync(join(dir, name))));

describe('SqliteAuditStore: tampering is detected', () => {
  it('a modified row', async () => {
    await emit(5);
    expect(await audit.verify()).toEqual({ ok: true, count: 5 });
    sql("UPDATE audit_events SET detail = '{\"i\":99}' WHERE seq = 3");
    expect(await audit.verify()).toMatchObject({ ok: false, brokenAt: { seq: 3, reason: 'hash does not match the content (event modified)' } });
  });

  it('a removed row', async () => {
    await emit(4);
    sql('DELETE FROM audit_events WHERE seq = 2');
    expect(await audit.verify()).toMatchObject({
      ok: false, brokenAt: { seq: 3, reason: 'prev_hash does not match the previous event (event removed or reordered)' },
    });
  });

  it('the oldest rows removed without a pruning record', async () => {
    await emit(5);
    sql('DELETE FROM audit_events WHERE seq <= 2');
    expect(await audit.verify()).toEqual({
      ok: false, count: 3,
      brokenAt: { seq: 3, id: expect.any(String), reason: 'events before the oldest kept one were removed without a pruning record' },
    });
  });

  it('a pruning record that vouches for another range', async () => {
    await emit(3, 'old');
    clock += 86_400_000;
    await emit(2, 'kept');
    expect(await audit.prune(0.5)).toBe(3);
    expect(await audit.verify()).toMatchObject({ ok: true });
    // Rewriting the record's last_hash (and nothing else) breaks its own hash.
    sql(`UPDATE audit_events SET detail = json_set(detail, '$.last_hash', '${'f'.repeat(64)}') WHERE event_type = 'audit.pruned'`);
    expect(await audit.verify()).toMatchObject({ ok: false, brokenAt: { reason: 'hash does not match the content (event modified)' } });
  });
});

describe('SqliteAuditStore: the chain head', () => {
  it('continues the chain across a reopen', async () => {
    await emit(2);
    await storage.close();
    storage = new SqliteStorage(file);
    audit = new AuditLog(storage.audit, () => clock);
    await emit(1);
    expect(await audit.verify()).toEqual({ ok: true, count: 3 });
  });

  it('advances only for events that committed', async () => {
    // A deferred foreign key fails only at COMMIT: the whole batch, both audit events with it, rolls back.
    storage.database.db.exec(`CREATE TABLE parent (id INTEGER PRIMARY KEY);
      CREATE TABLE child (pid INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED);`);
    await emit(1, 'committed');
    const batch = await Promise.allSettled([
      audit.emit({ event_type: 'rolled.back.1', category: 'test', result: 'allow' }),
      audit.emit({ event_type: 'rolled.back.2', category: 'test', result: 'allow' }),
      storage.uow.run(() => storage.database.db.prepare('INSERT INTO child (pid) VALUES (42)').run()),
    ]);
    expect(batch.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    await emit(2, 'after');
    expect(await audit.verify()).toEqual({ ok: true, count: 3 });
  });

  it('advances only when a pruning slice committed', async () => {
    storage.database.db.exec(`CREATE TABLE parent (id INTEGER PRIMARY KEY);
      CREATE TABLE child (pid INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED);`);
    await emit(3, 'old');
    let fail = true;
    const cutoff = new Date(clock).toISOString();
    const record = (range: { removed: number; last_hash: string; first_timestamp: string; last_timestamp: string }) => {
      // Runs inside the slice's transaction: an orphan row makes its COMMIT fail after the record was inserted.
      if (fail) storage.database.db.prepare('INSERT INTO child (pid) VALUES (42)').run();
      return {
        id: `evt_pruned_${range.removed}`, timestamp: new Date(clock).toISOString(), event_type: 'audit.pruned', category: 'audit',
        result: 'allow' as const, severity: 'info' as const, actor: null, source: null, subsystem: 'audit', action: 'retention',
        session_id: null, task_id: null, detail: { ...range },
      };
    };
    await expect(storage.audit.pruneBefore(cutoff, record)).rejects.toThrow(/FOREIGN KEY/);
    expect(await audit.count()).toBe(3);
    await emit(1, 'after');
    expect(await audit.verify()).toEqual({ ok: true, count: 4 });
    fail = false;
    expect(await storage.audit.pruneBefore(cutoff, record)).toBe(3);
    expect(await audit.verify()).toEqual({ ok: true, count: 2 });
  });
});

describe('SqliteAuditStore: redaction', () => {
  it('the secret never reaches any file of the home folder', async () => {
    const secret = 'sk-ant-api03-NEVERSTOREDxxxxxxxxxxxxxxxx';
    await audit.emit({
      event_type: 'test.event', category: 'test', result: 'allow', actor: 'operator', source: `from ${secret}`,
      detail: { note: `key ${secret}`, api_key: 'plain-value-under-key', prompt_tokens: 42 },
    });
    const bytes = folderBytes();
    expect(bytes.includes('NEVERSTORED')).toBe(false);
    expect(bytes.includes('plain-value-under-key')).toBe(false);
    // The event itself is there, so the read above did see it.
    expect(bytes.includes('test.event')).toBe(true);
  });
});
