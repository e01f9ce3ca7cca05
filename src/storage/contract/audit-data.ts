import { eventHash, GENESIS_HASH } from '../ports/audit-chain.js';
import type { AuditLog } from '../../audit/log.js';
import {
  AUDIT_FACET_FIELDS, AUDIT_FILTER_FIELDS, type AuditEvent, type AuditFacets, type AuditInput, type AuditPage, type AuditQuery,
  type ChainedAuditEvent, type FacetCount,
} from '../ports/audit.js';

/**
 * Randomised audit data and a brute-force model of the audit query: the contract suite compares
 * every backend's answers with what this computes by reading every event.
 */

export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KINDS: Pick<AuditInput, 'event_type' | 'category' | 'result' | 'severity' | 'subsystem'>[] = [
  { event_type: 'network_request', category: 'gateway', result: 'allow', subsystem: 'gateway' },
  { event_type: 'network_denied', category: 'gateway', result: 'deny', subsystem: 'gateway' },
  { event_type: 'network_error', category: 'gateway', result: 'error', severity: 'warning', subsystem: 'gateway' },
  { event_type: 'web.auth', category: 'web', result: 'deny', subsystem: 'auth' },
  { event_type: 'web.login', category: 'web', result: 'deny', severity: 'warning', subsystem: 'auth' },
  { event_type: 'web.login', category: 'web', result: 'allow', subsystem: 'auth' },
  { event_type: 'agent.tool_call', category: 'agent', result: 'allow', subsystem: 'agent' },
  { event_type: 'agent.tool_call', category: 'agent', result: 'error', severity: 'warning', subsystem: 'agent' },
  { event_type: 'agent.run.complete', category: 'agent', result: 'allow', subsystem: null },
  { event_type: 'webhook.accept', category: 'webhook', result: 'allow', subsystem: 'webhook' },
  { event_type: 'Custom.Event', category: 'misc', result: 'error', severity: 'info', subsystem: null },
];
const WORDS = ['alpha', 'Bravo', 'charlie', 'DELTA', 'échec', 'Überweisung', 'quote"d', 'back\\slash', 'api.github.com', '/v1/items', 'x'];
const pick = <T>(random: () => number, list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
const maybe = <T>(random: () => number, list: readonly T[], pNull = 0.4): T | null => (random() < pNull ? null : pick(random, list));

/** One random event's input; about one in twenty carries nested secrets (redacted on write). */
export function randomInput(random: () => number, i: number): AuditInput {
  const words = Array.from({ length: 1 + Math.floor(random() * 4) }, () => pick(random, WORDS)).join(' ');
  const detail: Record<string, unknown> = { i, note: words, nested: { url: `https://${pick(random, ['a.example', 'B.example'])}/p/${i % 17}`, n: i % 5 } };
  if (random() < 0.05) detail.auth = { api_key: 'plain-secret-value', headers: [{ authorization: 'Bearer abc' }] };
  return {
    ...pick(random, KINDS),
    actor: maybe(random, ['operator', 'scheduler']),
    source: maybe(random, ['127.0.0.1', '10.0.0.7', '::1']),
    action: maybe(random, ['GET', 'POST /login', 'web_fetch']),
    session_id: maybe(random, ['sess_a', 'sess_b', 'sess_c'], 0.5),
    task_id: maybe(random, ['run_1', 'run_2'], 0.7),
    detail,
  };
}

/**
 * Emits `n` random events through `audit`, the clock moving by random steps of a second to three
 * hours (and sometimes landing exactly on an hour), so ranges cut through days, hours and minutes.
 * Emitted in groups that commit together, in order. Returns them chained (after the event whose
 * hash is `after`) as the store must hold them.
 */
export async function emitRandom(
  audit: AuditLog, clock: { now: number }, random: () => number, n: number, after = GENESIS_HASH,
): Promise<ChainedAuditEvent[]> {
  const events: AuditEvent[] = [];
  for (let i = 0; i < n;) {
    const group: Promise<AuditEvent>[] = [];
    for (const end = Math.min(n, i + 1 + Math.floor(random() * 8)); i < end; i++) {
      const step = random() < 0.1 ? 3_600_000 - (clock.now % 3_600_000) : Math.floor(random() * random() * 3 * 3_600_000);
      clock.now += step;
      group.push(audit.emit(randomInput(random, i)));
    }
    events.push(...(await Promise.all(group)));
  }
  let prev = after;
  return events.map((event) => {
    const hash = eventHash(prev, event);
    const chained = { ...event, prev_hash: prev, hash };
    prev = hash;
    return chained;
  });
}

/** What any backend must answer for `query` over `events` (oldest first), by reading every one. */
export function expectedPage(events: readonly ChainedAuditEvent[], query: AuditQuery): AuditPage {
  const needle = query.q?.toLowerCase();
  const matching = events
    .map((event, order) => ({ event, order }))
    .filter(({ event }) => AUDIT_FILTER_FIELDS.every((field) => query[field] === undefined || event[field] === query[field])
      && (query.since === undefined || event.timestamp >= query.since)
      && (query.until === undefined || event.timestamp < query.until)
      && (needle === undefined || event.event_type.toLowerCase().includes(needle) || JSON.stringify(event.detail).toLowerCase().includes(needle)))
    .sort((a, b) => (a.event.timestamp === b.event.timestamp ? b.order - a.order : a.event.timestamp < b.event.timestamp ? 1 : -1))
    .map(({ event }) => event);
  const facets = Object.fromEntries(AUDIT_FACET_FIELDS.map((field) => {
    const counts = new Map<string | null, number>();
    for (const event of matching) counts.set(event[field], (counts.get(event[field]) ?? 0) + 1);
    const list: FacetCount[] = [...counts].map(([value, count]) => ({ value, count }));
    list.sort((a, b) => b.count - a.count || (a.value === b.value ? 0 : a.value === null ? 1 : b.value === null ? -1 : a.value < b.value ? -1 : 1));
    return [field, list];
  })) as AuditFacets;
  const page = matching.slice(query.offset, query.offset + query.limit);
  return { events: page, total: matching.length, total_is_estimate: false, has_more: query.offset + page.length < matching.length, facets };
}

/**
 * Random queries over `events`: each filter alone, random combinations, time ranges on hour and
 * day boundaries and between them, substrings of stored text in another case, and paging edges.
 */
export function randomQueries(events: readonly ChainedAuditEvent[], random: () => number, count: number): AuditQuery[] {
  const valuesOf = (field: (typeof AUDIT_FILTER_FIELDS)[number]) => [...new Set(events.map((e) => e[field]).filter((v) => v !== null))] as string[];
  const timeAround = () => {
    const base = Date.parse(pick(random, events).timestamp);
    const shapes = [0, 1, -1, 3_600_000 - (base % 3_600_000), -(base % 86_400_000), Math.floor(random() * 7_200_000) - 3_600_000];
    return new Date(base + pick(random, shapes)).toISOString();
  };
  const substring = () => {
    const event = pick(random, events);
    const text = random() < 0.2 ? event.event_type : JSON.stringify(event.detail);
    const start = Math.floor(random() * Math.max(1, text.length - 3));
    const piece = [...text.slice(start, start + 3 + Math.floor(random() * 10))].join('');
    return random() < 0.5 ? piece.toUpperCase() : piece;
  };
  const queries: AuditQuery[] = [];
  for (const field of AUDIT_FILTER_FIELDS) {
    for (const value of [...valuesOf(field), 'no-such-value']) queries.push({ [field]: value, limit: 50, offset: 0 });
  }
  for (let i = 0; i < count; i++) {
    const query: AuditQuery = { limit: pick(random, [1, 7, 50, 500]), offset: 0 };
    for (const field of AUDIT_FILTER_FIELDS) if (random() < 0.15) query[field] = pick(random, valuesOf(field));
    if (random() < 0.4) query.since = timeAround();
    if (random() < 0.4) query.until = timeAround();
    if (query.since !== undefined && query.until !== undefined && query.since >= query.until) [query.since, query.until] = [query.until, query.since];
    if (query.since !== undefined && query.since === query.until) delete query.until;
    if (random() < 0.25) query.q = substring();
    const total = expectedPage(events, { ...query, limit: 1, offset: 0 }).total;
    query.offset = pick(random, [0, 0, Math.floor(total / 2), Math.max(0, total - 1), total, total + 5]);
    queries.push(query);
  }
  return queries;
}
