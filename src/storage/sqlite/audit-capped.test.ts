import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectedPage } from '../contract/audit-data.js';
import { AUDIT_EXACT_TOTAL, type AuditEvent, type AuditQuery, type ChainedAuditEvent } from '../ports/audit.js';
import { rowToChained, type AuditRow } from './audit-rows.js';
import { SqliteStorage } from './index.js';

/**
 * The count cap of a `q` query on a real SQLite file: exact up to `AUDIT_EXACT_TOTAL` matches,
 * estimated past it, the page exact either way.
 */
let dir: string;
let storage: SqliteStorage;
const START = Date.parse('2026-02-01T00:00:00.000Z');

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentd-audit-capped-'));
  storage = new SqliteStorage(join(dir, 'agentd.db'));
});
afterEach(async () => {
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * `count` events a second apart from `first` on; every `every`-th is a denied upload (the text `q`
 * finds), the others are requests. The uploads alternate between two subsystems, for the facets.
 */
function events(first: number, count: number, every: number, at = (n: number) => START + n * 1_000): AuditEvent[] {
  return Array.from({ length: count }, (_, i) => {
    const n = first + i;
    const upload = n % every === 0;
    return {
      id: `evt_${n}`, timestamp: new Date(at(n)).toISOString(), event_type: upload ? 'network_denied' : 'http.request',
      category: 'network', result: upload ? 'deny' : 'allow', severity: upload ? 'warning' : 'info',
      subsystem: upload ? (n % (2 * every) === 0 ? 'gateway' : 'webhook') : 'http', actor: null, source: null, action: null,
      session_id: null, task_id: null, detail: upload ? { url: `https://h${n}.example/Upload` } : { path: `/api/v1/runs/${n}` },
    };
  });
}

/** Every stored event, oldest first in the chain, to compare with a brute-force reading. */
const all = (): ChainedAuditEvent[] =>
  (storage.database.db.prepare('SELECT * FROM audit_events ORDER BY seq').all() as AuditRow[]).map(rowToChained);
const query = (q: Partial<AuditQuery>): AuditQuery => ({ q: '/upload', limit: 50, offset: 0, ...q });

describe('a q query past the count cap', () => {
  it('counts exactly up to the cap, facets included: exactly the cap matching is still exact', async () => {
    storage.audit.appendMany(events(0, 2 * AUDIT_EXACT_TOTAL, 2));
    storage.audit.search.catchUp();
    const everything = all();
    const answer = await storage.audit.query(query({}));
    expect(answer.total).toBe(AUDIT_EXACT_TOTAL);
    expect(answer).toEqual(expectedPage(everything, query({})));
    expect(answer.total_is_estimate).toBe(false);
    // A kind filter narrows the matches below the cap: exact, with exact facets.
    const narrowed = query({ subsystem: 'webhook', offset: 30 });
    expect(await storage.audit.query(narrowed)).toEqual(expectedPage(everything, narrowed));
  });

  it('flags the total and facets as estimates past the cap and keeps every page exact', async () => {
    // 3 in 4 events match: 18,000 in all, the newest ones not in the search index yet.
    storage.audit.appendMany(events(0, 20_000, 4).map((event, i) => (i % 4 === 3 ? event : { ...event, ...uploadOf(event) })));
    storage.audit.search.catchUp();
    storage.audit.appendMany(events(20_000, 4_000, 4).map((event, i) => (i % 4 === 3 ? event : { ...event, ...uploadOf(event) })));
    const everything = all();
    for (const [offset, limit] of [[0, 50], [7_321, 13], [AUDIT_EXACT_TOTAL - 50, 50]] as const) {
      const q = query({ offset, limit });
      const expected = expectedPage(everything, q);
      const answer = await storage.audit.query(q);
      expect(answer.total_is_estimate).toBe(true);
      expect(answer.events).toEqual(expected.events);
      expect(answer.has_more).toBe(true);
      // Every candidate the index proposes matches here, so the estimate is near the truth.
      expect(Math.abs(answer.total - expected.total)).toBeLessThan(expected.total * 0.02);
      expect(answer.total).toBeGreaterThan(AUDIT_EXACT_TOTAL);
      for (const [field, counts] of Object.entries(answer.facets)) {
        // Compared by value: two values of about the same count may swap places in an estimate.
        const truth = new Map(expected.facets[field as keyof typeof expected.facets].map((c) => [c.value, c.count]));
        expect(new Set(counts.map((c) => c.value)), field).toEqual(new Set(truth.keys()));
        for (const { value, count } of counts) expect(Math.abs(count - truth.get(value)!), `${field} ${value}`).toBeLessThan(truth.get(value)! * 0.05);
      }
    }
  });

  it('reads everything when the clock stepped back, so an older event in the chain is the newest in time', async () => {
    // Chain order and time agree except for one early match stamped a day later than all others.
    storage.audit.appendMany(events(0, 12_000, 1, (n) => START + (n === 5 ? 86_400_000 * 2 : n * 1_000)));
    storage.audit.search.catchUp();
    const everything = all();
    const answer = await storage.audit.query(query({ limit: 3 }));
    expect(answer.events.map((e) => e.id)).toEqual(['evt_5', 'evt_11999', 'evt_11998']);
    expect(answer).toEqual(expectedPage(everything, query({ limit: 3 })));
    expect(answer.total_is_estimate).toBe(false);
  });
});

/** The same event as a denied upload (the text `q` finds). */
function uploadOf(event: AuditEvent): Partial<AuditEvent> {
  return { event_type: 'network_denied', result: 'deny', severity: 'warning', detail: { url: `https://${event.id}.example/UPLOAD` } };
}
