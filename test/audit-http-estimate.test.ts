import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_EXACT_TOTAL, type AuditEvent, type AuditPage } from '../src/storage/ports/audit.js';
import { SqliteStorage } from '../src/storage/sqlite/index.js';
import { startTestApp, type TestApp } from './helpers/app.js';

// GET /api/v1/audit past the count cap, on the real app and a real port: the flag and the
// estimated total and facets reach the client; under the cap everything stays exact.
let t: TestApp;
const EVENTS = AUDIT_EXACT_TOTAL + 500;
const START = Date.parse('2026-03-01T00:00:00.000Z');

beforeAll(async () => {
  t = await startTestApp();
  if (!(t.app.storage instanceof SqliteStorage)) throw new Error('the app does not run on SQLite');
  // Every event is a bulk upload; one in five was denied.
  const events: AuditEvent[] = Array.from({ length: EVENTS }, (_, n) => ({
    id: `evt_bulk_${n}`, timestamp: new Date(START + n * 1_000).toISOString(), event_type: 'bulk.upload', category: 'network',
    result: n % 5 === 0 ? 'deny' : 'allow', severity: 'info', subsystem: 'gateway', actor: null, source: null, action: null,
    session_id: null, task_id: null, detail: { n },
  }));
  t.app.storage.audit.appendMany(events);
});
afterAll(() => t.close());

const page = async (query: string): Promise<AuditPage> => {
  const response = await t.request(`/api/v1/audit?${query}`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: AuditPage }).data;
};

describe('GET /api/v1/audit past the count cap', () => {
  it('answers an estimated total and facets, flagged, with the exact newest page', async () => {
    const data = await page('q=BULK.upload&limit=2');
    expect(data.total_is_estimate).toBe(true);
    // Every candidate matches here, so the estimate is the count.
    expect(data.total).toBe(EVENTS);
    expect(data.has_more).toBe(true);
    expect(data.events.map((e) => e.id)).toEqual([`evt_bulk_${EVENTS - 1}`, `evt_bulk_${EVENTS - 2}`]);
    expect(data.facets.subsystem).toEqual([{ value: 'gateway', count: EVENTS }]);
    const deny = data.facets.result.find((f) => f.value === 'deny')!.count;
    expect(Math.abs(deny - EVENTS / 5)).toBeLessThan(EVENTS / 5 * 0.02);
  });

  it('stays exact, and says so, when a filter brings the matches under the cap', async () => {
    const data = await page('q=bulk.upload&result=deny&limit=1');
    expect(data).toMatchObject({ total: EVENTS / 5, total_is_estimate: false, has_more: true });
    expect(data.facets.result).toEqual([{ value: 'deny', count: EVENTS / 5 }]);
    expect(data.events[0]!.id).toBe(`evt_bulk_${EVENTS - 5}`);
  });
});
