import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Database } from '../storage/database.js';
import { AuditLog } from './store.js';
import { AuditSampler } from './sampler.js';

let dir: string;
let db: Database | undefined;
afterEach(() => {
  db?.close();
  db = undefined;
  rmSync(dir, { recursive: true, force: true });
});

function open(): { db: Database; audit: AuditLog; file: string } {
  dir = mkdtempSync(join(tmpdir(), 'agentd-audit-'));
  const file = join(dir, 'agentd.db');
  db = new Database(file);
  return { db, audit: new AuditLog(db), file };
}

describe('AuditLog', () => {
  it('redacts before the write: the secret never reaches the database file', () => {
    const { db, audit, file } = open();
    const secret = 'sk-ant-api03-NEVERSTOREDxxxxxxxxxxxxxxxx';
    const event = audit.emit({
      event_type: 'test.event', category: 'test', result: 'allow', actor: 'operator',
      detail: { note: `key ${secret}`, api_key: 'plain-value-under-key', prompt_tokens: 42 },
    });
    expect(event.detail).toEqual({ note: 'key [REDACTED]', api_key: '[REDACTED]', prompt_tokens: 42 });
    expect(event.severity).toBe('info');
    db.db.pragma('wal_checkpoint(TRUNCATE)');
    const bytes = readFileSync(file);
    expect(bytes.includes(Buffer.from('NEVERSTORED'))).toBe(false);
    expect(bytes.includes(Buffer.from('plain-value-under-key'))).toBe(false);
    expect(bytes.includes(Buffer.from('test.event'))).toBe(true);
  });

  it('chains events and detects a modified, a deleted and a reordered row', () => {
    const { db, audit } = open();
    for (let i = 0; i < 5; i++) audit.emit({ event_type: `e${i}`, category: 'test', result: 'deny', detail: { i } });
    expect(audit.verify()).toEqual({ ok: true, count: 5 });

    db.db.prepare("UPDATE audit_events SET detail = '{\"i\":99}' WHERE seq = 3").run();
    const modified = audit.verify();
    expect(modified.ok).toBe(false);
    if (!modified.ok) expect(modified.brokenAt).toMatchObject({ seq: 3, reason: expect.stringContaining('modified') });
  });

  it('detects a removed event', () => {
    const { db, audit } = open();
    for (let i = 0; i < 4; i++) audit.emit({ event_type: `e${i}`, category: 'test', result: 'allow' });
    db.db.prepare('DELETE FROM audit_events WHERE seq = 2').run();
    const result = audit.verify();
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.brokenAt.seq).toBe(3);
  });

  it('continues the chain across reopen', () => {
    const { db, audit, file } = open();
    audit.emit({ event_type: 'a', category: 't', result: 'allow' });
    db.close();
    const again = new Database(file);
    const audit2 = new AuditLog(again);
    audit2.emit({ event_type: 'b', category: 't', result: 'allow' });
    expect(audit2.verify()).toEqual({ ok: true, count: 2 });
    again.close();
  });
});

describe('AuditSampler', () => {
  it('writes a few events per key and window and reports how many it skipped', () => {
    let now = 0;
    const sampler = new AuditSampler(2, 60_000, 100, () => now);
    expect(sampler.take('ip')).toEqual({ suppressed: 0 });
    expect(sampler.take('ip')).toEqual({ suppressed: 0 });
    expect(sampler.take('ip')).toBeNull();
    expect(sampler.take('ip')).toBeNull();
    expect(sampler.take('other')).toEqual({ suppressed: 0 });
    now = 60_000;
    expect(sampler.take('ip')).toEqual({ suppressed: 2 });
  });
});
