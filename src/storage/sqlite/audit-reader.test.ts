import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../audit/log.js';
import type { AuditPage, AuditQuery } from '../ports/audit.js';
import { StorageBusyError } from '../ports/errors.js';
import { AuditReader } from './audit-reader.js';
import { SqliteStorage } from './index.js';
import { collectingLogger } from '../../../test/helpers/log.js';
import type { Logger } from '../../log.js';

let dir: string;
let file: string;
let storage: SqliteStorage;
const readers: AuditReader[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agentd-audit-reader-'));
  file = join(dir, 'agentd.db');
  storage = new SqliteStorage(file);
  const log = new AuditLog(storage.audit, () => Date.parse('2026-01-05T10:00:00.000Z'));
  for (let i = 0; i < 30; i++) {
    await log.emit({ event_type: i % 3 === 0 ? 'web.auth' : 'http.request', category: 'web', result: i % 3 === 0 ? 'deny' : 'allow', subsystem: 'http', detail: { n: i } });
  }
});
afterEach(async () => {
  for (const reader of readers.splice(0)) await reader.close();
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
});

const QUERY: AuditQuery = { result: 'deny', limit: 4, offset: 2 };

/** A reader whose in-thread fallback answers an empty page and counts its calls. */
function reader(path: string, log?: Logger) {
  const fallback = { calls: 0 };
  const empty: AuditPage = { events: [], total: -1, total_is_estimate: false, has_more: false, facets: { category: [], result: [], severity: [], subsystem: [] } };
  const made = new AuditReader(path, () => {
    fallback.calls++;
    return empty;
  }, log);
  readers.push(made);
  return { reader: made, fallback };
}

describe('AuditReader', () => {
  it('answers from its worker thread exactly what the store answers in this thread', async () => {
    const { reader: worker, fallback } = reader(file);
    const page = await worker.run(QUERY);
    expect(fallback.calls).toBe(0);
    expect(page.total).toBe(10);
    expect(page.events.map((e) => e.detail.n)).toEqual([21, 18, 15, 12]);
    expect(page.facets.result).toEqual([{ value: 'deny', count: 10 }]);
  });

  it('sees events committed after it started (a new read per query)', async () => {
    const { reader: worker } = reader(file);
    expect((await worker.run(QUERY)).total).toBe(10);
    const log = new AuditLog(storage.audit, () => Date.parse('2026-01-05T11:00:00.000Z'));
    await log.emit({ event_type: 'web.auth', category: 'web', result: 'deny', subsystem: 'auth', detail: {} });
    const page = await worker.run(QUERY);
    expect(page.total).toBe(11);
    expect(page.facets.subsystem).toEqual([{ value: 'http', count: 10 }, { value: 'auth', count: 1 }]);
  });

  it('answers in this thread, logged once, when its worker cannot open the file', async () => {
    const logged: string[] = [];
    const { reader: broken, fallback } = reader(join(dir, 'missing.db'), collectingLogger(logged));
    expect((await broken.run(QUERY)).total).toBe(-1);
    expect((await broken.run(QUERY)).total).toBe(-1);
    expect(fallback.calls).toBe(2);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(/audit query worker failed/);
  });

  it('refuses a query beyond 64 waiting instead of queueing without bound', async () => {
    const { reader: worker } = reader(file);
    const queued = Array.from({ length: 64 }, () => worker.run(QUERY));
    await expect(worker.run(QUERY)).rejects.toThrow(StorageBusyError);
    const pages = await Promise.all(queued);
    expect(pages.every((p) => p.total === 10)).toBe(true);
  });

  it('rejects what it holds when closed, and every query after', async () => {
    const { reader: worker } = reader(file);
    const held = expect(worker.run(QUERY)).rejects.toThrow(/closed/);
    await worker.close();
    await held;
    await expect(worker.run(QUERY)).rejects.toThrow(/closed/);
  });
});
