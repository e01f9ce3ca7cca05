import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventHash } from '../src/storage/ports/audit-chain.js';
import { AUDIT_FILTER_FIELDS, type AuditInput, type AuditPage, type ChainedAuditEvent } from '../src/storage/ports/audit.js';
import { startTestApp, type TestApp } from './helpers/app.js';

// GET /api/v1/audit on the real app and a real port. The exhaustive comparison with a brute-force
// reading of random events is the store's contract suite; this is the HTTP side of it.
let t: TestApp;
let clock = Date.parse('2026-01-05T10:00:00.000Z');
const emitted: ChainedAuditEvent[] = [];

type Envelope = { status: string; data: AuditPage; error: string; code: string };

async function get(query: string): Promise<{ status: number; body: Envelope }> {
  const response = await t.request(`/api/v1/audit${query === '' ? '' : `?${query}`}`);
  return { status: response.status, body: (await response.json()) as Envelope };
}

const page = async (query: string) => {
  const { status, body } = await get(query);
  expect(status, JSON.stringify(body)).toBe(200);
  return body.data;
};

/** Ten events an hour apart, each field set on one of them only, so every filter can pick it out. */
const EVENTS: AuditInput[] = [
  { event_type: 'web.login', category: 'web', result: 'deny', severity: 'warning', subsystem: 'auth', source: '10.9.8.7', action: 'POST /login' },
  { event_type: 'web.login', category: 'web', result: 'allow', subsystem: 'auth', actor: 'operator', detail: { web_session: 'ws_1' } },
  { event_type: 'network_request', category: 'gateway', result: 'allow', subsystem: 'gateway', session_id: 'sess_http', detail: { url: 'https://API.Example.org/v1/x' } },
  { event_type: 'network_denied', category: 'gateway', result: 'deny', subsystem: 'gateway', task_id: 'run_http', detail: { host: 'evil.example' } },
  { event_type: 'agent.tool_call', category: 'agent', result: 'error', severity: 'error', subsystem: 'agent', action: 'web_fetch' },
  { event_type: 'test.nested', category: 'test', result: 'allow', detail: { deep: { list: [{ password: 'hunter2-value' }, { note: 'token sk-ant-api03-SHOULDNOTAPPEARxxxxxxxxxx' }] } } },
];

beforeAll(async () => {
  t = await startTestApp({ now: () => clock });
  for (const input of EVENTS) {
    const event = await t.app.audit.emit(input);
    const prev = emitted.at(-1)?.hash ?? '0'.repeat(64);
    emitted.push({ ...event, prev_hash: prev, hash: eventHash(prev, event) });
    clock += 3_600_000;
  }
});
afterAll(() => t.close());

describe('GET /api/v1/audit', () => {
  it('answers newest first with the exact total, has_more, facets over every match, and each event with its chain links', async () => {
    const data = await page('limit=2');
    expect(data.total).toBe(EVENTS.length);
    expect(data.has_more).toBe(true);
    expect(data.events).toEqual([emitted[5], emitted[4]]);
    const [newest, next] = data.events;
    expect(newest!.prev_hash).toBe(next!.hash);
    const { prev_hash, hash, ...content } = newest!;
    expect(eventHash(prev_hash, content)).toBe(hash);
    expect(data.facets).toEqual({
      category: [{ value: 'gateway', count: 2 }, { value: 'web', count: 2 }, { value: 'agent', count: 1 }, { value: 'test', count: 1 }],
      result: [{ value: 'allow', count: 3 }, { value: 'deny', count: 2 }, { value: 'error', count: 1 }],
      severity: [{ value: 'info', count: 3 }, { value: 'warning', count: 2 }, { value: 'error', count: 1 }],
      subsystem: [{ value: 'auth', count: 2 }, { value: 'gateway', count: 2 }, { value: 'agent', count: 1 }, { value: null, count: 1 }],
    });
  });

  it('takes every documented filter, alone and combined', async () => {
    for (const field of AUDIT_FILTER_FIELDS) {
      const values = new Set(emitted.map((e) => e[field]).filter((v) => v !== null));
      for (const value of values) {
        const data = await page(`${field}=${encodeURIComponent(value!)}`);
        expect(data.events.map((e) => e.id), `${field}=${value}`).toEqual(emitted.filter((e) => e[field] === value).map((e) => e.id).reverse());
      }
      // result and severity take only their values (a 400 below).
      if (field !== 'result' && field !== 'severity') expect((await page(`${field}=no-such-value`)).total).toBe(0);
    }
    const both = await page('category=web&result=deny&source=10.9.8.7&action=POST%20%2Flogin');
    expect(both.events.map((e) => e.id)).toEqual([emitted[0]!.id]);
    expect((await page('category=web&result=error')).total).toBe(0);
  });

  it('finds q in the event type or the detail whatever the case, and nothing across the two', async () => {
    expect((await page('q=api.example.ORG')).events.map((e) => e.id)).toEqual([emitted[2]!.id]);
    expect((await page('q=WEB.LOGIN')).total).toBe(2);
    expect((await page('q=%22host%22%3A%22evil')).events.map((e) => e.id)).toEqual([emitted[3]!.id]);
    expect((await page('q=nested%7B')).total).toBe(0);
  });

  it('takes since (inclusive) and until (exclusive) with Z or any offset', async () => {
    const ids = async (query: string) => (await page(query)).events.map((e) => e.id).reverse();
    const expected = [emitted[1]!.id, emitted[2]!.id];
    expect(await ids(`since=${emitted[1]!.timestamp}&until=${emitted[3]!.timestamp}`)).toEqual(expected);
    expect(await ids('since=2026-01-05T11:00:00Z&until=2026-01-05T13:00:00Z')).toEqual(expected);
    expect(await ids(`since=${encodeURIComponent('2026-01-05T13:00:00+02:00')}&until=${encodeURIComponent('2026-01-05T08:00:00-05:00')}`)).toEqual(expected);
    // An unencoded + arrives as a space; it is read as +.
    expect(await ids('since=2026-01-05T13:00:00+02:00&until=2026-01-05T15:00:00+02:00')).toEqual(expected);
    expect(await ids('since=2026-01-05T11:00:00.001Z')).toEqual(emitted.slice(2).map((e) => e.id));
  });

  it('pages: a clamped limit, an offset past the end, empty values as no filter', async () => {
    expect((await page('limit=0')).events).toHaveLength(1);
    expect((await page('limit=-3')).events).toHaveLength(1);
    const all = await page('limit=100000');
    expect(all.events).toHaveLength(EVENTS.length);
    expect(all.has_more).toBe(false);
    expect(await page('offset=5&limit=5')).toMatchObject({ total: 6, has_more: false, events: [emitted[0]] });
    expect(await page('offset=6')).toMatchObject({ total: 6, has_more: false, events: [] });
    expect(await page('offset=999999999')).toMatchObject({ total: 6, has_more: false, events: [] });
    expect((await page('result=&q=&since=&subsystem=')).total).toBe(6);
  });

  it('shows and searches only what was stored: nested secrets were redacted before', async () => {
    const data = await page('event_type=test.nested');
    expect(data.events[0]!.detail).toEqual({ deep: { list: [{ password: '[REDACTED]' }, { note: 'token [REDACTED]' }] } });
    expect((await page('q=hunter2')).total).toBe(0);
    expect((await page('q=SHOULDNOTAPPEAR')).total).toBe(0);
  });

  it('answers 400 naming the parameter for anything it cannot mean', async () => {
    const cases: [string, RegExp][] = [
      ['since=yesterday', /"since" must be an ISO 8601 date-time with Z or an offset/],
      ['since=2026-01-05', /"since"/],
      ['until=2026-01-05T10:00:00', /"until" must be an ISO 8601/],
      ['until=2026-02-30T10:00:00Z', /"until"/],
      ['since=2026-01-05T12:00:00Z&until=2026-01-05T12:00:00Z', /"until" must be later than "since"/],
      ['result=maybe', /"result" must be one of allow, deny, error/],
      ['severity=loud', /"severity" must be one of info, warning, error/],
      ['q=ab', /"q" must be 3 to 200 characters/],
      [`q=${'x'.repeat(201)}`, /"q" must be 3 to 200 characters/],
      ['limit=ten', /limit must be an integer/],
      ['offset=-1', /offset must be a non-negative integer/],
      ['offset=1.5', /offset must be a non-negative integer/],
      ['severty=warning', /query parameter "severty" is not allowed/],
      ['result=deny&result=allow', /query parameter "result" must be string/],
      [`actor=${'a'.repeat(513)}`, /query parameter "actor"/],
    ];
    for (const [query, message] of cases) {
      const { status, body } = await get(query);
      expect(status, query).toBe(400);
      expect(body, query).toMatchObject({ status: 'error', code: 'AGENTD_VALIDATION' });
      expect(body.error, query).toMatch(message);
    }
  });
});

describe('GET /api/v1/diagnostics', () => {
  it('reports the audit log: chain verified from the oldest kept event, its size, the retention in force', async () => {
    const response = await t.request('/api/v1/diagnostics');
    const report = (await response.json()) as { data: { sections: { key: string; checks: { name: string; status: string; summary: string }[] }[] } };
    const check = report.data.sections.find((s) => s.key === 'memory')!.checks.find((c) => c.name === 'audit');
    expect(check).toMatchObject({ status: 'ok' });
    expect(check!.summary).toMatch(/hash chain verified from the oldest kept event \(6 events/);
    expect(check!.summary).toContain('6 events from 2026-01-05T10:00:00.000Z to 2026-01-05T15:00:00.000Z');
    expect(check!.summary).toContain('older than 365 days are pruned daily');
  });
});
