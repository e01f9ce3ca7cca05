import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventHash } from '../ports/audit-chain.js';
import { AuditLog } from '../../audit/log.js';
import { PRUNED_EVENT_TYPE, type AuditQuery, type AuditStore, type ChainedAuditEvent } from '../ports/audit.js';
import { emitRandom, expectedPage, mulberry32, randomQueries } from './audit-data.js';
import type { OpenAuditStore } from './audit-store.js';

const START = Date.parse('2026-03-01T22:10:00.000Z');
const DAY_MS = 86_400_000;
/** Fixed seeds keep failures reproducible; AUDIT_SEED adds one (npm test with another seed). */
const SEEDS = [1, 2, 3, ...(process.env.AUDIT_SEED ? [Number(process.env.AUDIT_SEED)] : [])];

/** The audit browser's queries (`AuditStore.query`, `stats`, `exportChain`), for every backend. */
export function describeAuditQuery(backend: string, open: OpenAuditStore): void {
  describe(`AuditStore queries (${backend})`, () => {
    let store: AuditStore;
    let close: () => Promise<void>;
    let settle: () => Promise<void>;
    const clock = { now: START };
    let audit: AuditLog;

    beforeEach(async () => {
      const opened = await open();
      ({ store, close } = opened);
      settle = opened.settle ?? (async () => {});
      clock.now = START;
      audit = new AuditLog(store, () => clock.now);
    });
    afterEach(async () => {
      await close();
    });

    const page = (query: Partial<AuditQuery>) => store.query({ limit: 50, offset: 0, ...query });

    /** Every query's answer equals the brute-force one; the failing query is named. */
    const compare = async (events: readonly ChainedAuditEvent[], queries: readonly AuditQuery[]) => {
      for (const query of queries) expect(await store.query(query), JSON.stringify(query)).toEqual(expectedPage(events, query));
    };

    for (const seed of SEEDS) {
      it(`equals a brute-force reading of randomised events: filters alone and combined, q, time ranges, facets, paging (seed ${seed})`, async () => {
        const random = mulberry32(seed);
        const events = await emitRandom(audit, clock, random, 400);
        const queries = randomQueries(events, random, 150);
        await compare(events, queries);
        await settle();
        await compare(events, queries);
        // Events that arrive after the backend settled are found as well.
        const more = [...events, ...(await emitRandom(audit, clock, random, 40, events.at(-1)!.hash))];
        await compare(more, randomQueries(more, random, 40));
      });
    }

    it('pages past the end with an exact total and no more to come', async () => {
      const events = await emitRandom(audit, clock, mulberry32(9), 30);
      expect(await page({ offset: 30 })).toMatchObject({ events: [], total: 30, has_more: false });
      expect(await page({ offset: 1_000_000 })).toMatchObject({ events: [], total: 30, has_more: false });
      const last = await page({ offset: 29, limit: 5 });
      expect(last).toMatchObject({ total: 30, has_more: false });
      expect(last.events.map((e) => e.id)).toEqual([events[0]!.id]);
      expect(await page({ limit: 29 })).toMatchObject({ total: 30, has_more: true });
    });

    it('returns each event with its chain links: an unfiltered page verifies on its own', async () => {
      await emitRandom(audit, clock, mulberry32(4), 25);
      const { events } = await page({ limit: 25 });
      for (const [i, event] of events.entries()) {
        const { prev_hash, hash, ...content } = event;
        expect(eventHash(prev_hash, content)).toBe(hash);
        if (i + 1 < events.length) expect(prev_hash).toBe(events[i + 1]!.hash);
      }
    });

    it('answers with the redacted event: nested secrets are neither shown nor searchable', async () => {
      await audit.emit({
        event_type: 'test.secret', category: 'test', result: 'allow',
        detail: { outer: { list: [{ password: 'hunter2-nested' }, 'sk-ant-api03-NEVERSTOREDxxxxxxxxxxxxxxxx'] }, prompt_tokens: 7 },
      });
      await settle();
      const { events } = await page({ event_type: 'test.secret' });
      expect(events[0]!.detail).toEqual({ outer: { list: [{ password: '[REDACTED]' }, '[REDACTED]'] }, prompt_tokens: 7 });
      expect((await page({ q: 'hunter2' })).total).toBe(0);
      expect((await page({ q: 'NEVERSTORED' })).total).toBe(0);
      expect((await page({ q: 'redacted' })).total).toBe(1);
    });

    it('counts only what retention kept, the pruning record included', async () => {
      const events = await emitRandom(audit, clock, mulberry32(5), 60);
      await settle();
      clock.now += DAY_MS;
      const cutoff = events[30]!.timestamp;
      const removed = await audit.prune((clock.now - Date.parse(cutoff)) / DAY_MS);
      expect(removed).toBe(events.findIndex((e) => e.timestamp >= cutoff));
      // Each slice of the pruning left one record.
      const records = await page({ event_type: PRUNED_EVENT_TYPE });
      expect(records.total).toBeGreaterThan(0);
      expect(records.facets.subsystem).toEqual([{ value: 'audit', count: records.total }]);
      const all = await page({ limit: 500 });
      expect(all.total).toBe(60 - removed + records.total);
      expect(all.events.map((e) => e.id)).toEqual(expect.arrayContaining(events.slice(removed).map((e) => e.id)));
      expect((await page({ since: events[0]!.timestamp, until: events[removed - 1]!.timestamp })).total).toBe(0);
      expect((await page({ q: `"i":${removed - 1},` })).total).toBe(0);
    });

    it('reports how many events it holds and their time span', async () => {
      expect(await store.stats()).toEqual({ count: 0, oldest: null, newest: null });
      const events = await emitRandom(audit, clock, mulberry32(6), 12);
      expect(await store.stats()).toEqual({ count: 12, oldest: events[0]!.timestamp, newest: events[11]!.timestamp });
    });

    it('exports the chain over a range, oldest first, with its links', async () => {
      const events = await emitRandom(audit, clock, mulberry32(7), 40);
      const read = async (range: { since?: string; until?: string }) => {
        const out: ChainedAuditEvent[] = [];
        for await (const event of store.exportChain(range)) out.push(event);
        return out;
      };
      expect(await read({})).toEqual(events);
      const [since, until] = [events[10]!.timestamp, events[25]!.timestamp];
      expect(await read({ since, until })).toEqual(events.filter((e) => e.timestamp >= since && e.timestamp < until));
      expect(await read({ since: new Date(clock.now + 1).toISOString() })).toEqual([]);
    });
  });
}

