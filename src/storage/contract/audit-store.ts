import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventHash, GENESIS_HASH } from '../ports/audit-chain.js';
import { AuditLog } from '../../audit/log.js';
import { PRUNED_EVENT_TYPE, type AuditEvent, type AuditStore, type PrunedRange } from '../ports/audit.js';

/**
 * The behaviour every `AuditStore` backend must have, through the interface only (the suite
 * builds the `AuditLog` on top). Tampering with stored rows needs the backend's own access, so
 * those tests live beside each backend. `settle` brings whatever a backend derives from its
 * events in the background (a search index) up to date: queries must be exact before and after.
 */
export type OpenAuditStore = () => Promise<{ store: AuditStore; close(): Promise<void>; settle?(): Promise<void> }>;

const START = Date.parse('2026-01-01T00:00:00.000Z');
const DAY_MS = 86_400_000;

/** The hash of each event, chained from genesis in the order given (what the store must link). */
function chainHashes(events: readonly AuditEvent[], from = GENESIS_HASH): string[] {
  let prev = from;
  return events.map((event) => (prev = eventHash(prev, event)));
}

export function describeAuditStore(backend: string, open: OpenAuditStore): void {
  describe(`AuditStore contract (${backend})`, () => {
    let store: AuditStore;
    let close: () => Promise<void>;
    let clock: number;
    let audit: AuditLog;

    beforeEach(async () => {
      ({ store, close } = await open());
      clock = START;
      audit = new AuditLog(store, () => clock);
    });
    afterEach(async () => {
      await close();
    });

    /** Emits `n` events, one second apart from the current clock. */
    const emitMany = async (n: number, type = 'test.event'): Promise<AuditEvent[]> => {
      const events: AuditEvent[] = [];
      for (let i = 0; i < n; i++) {
        events.push(await audit.emit({ event_type: type, category: 'test', result: 'allow', detail: { i } }));
        clock += 1000;
      }
      return events;
    };

    /** A pruning record builder that also keeps the ranges it was handed. */
    const recorder = () => {
      const ranges: PrunedRange[] = [];
      let n = 0;
      const record = (range: PrunedRange): AuditEvent => {
        ranges.push(range);
        return {
          id: `evt_pruned_${++n}`, timestamp: new Date(clock).toISOString(), event_type: PRUNED_EVENT_TYPE, category: 'audit',
          result: 'allow', severity: 'info', actor: null, source: null, subsystem: 'audit', action: 'retention',
          session_id: null, task_id: null, detail: { ...range },
        };
      };
      return { ranges, record };
    };

    it('verifies an empty log', async () => {
      expect(await store.verify()).toEqual({ ok: true, count: 0 });
      expect(await store.count()).toBe(0);
    });

    it('appends events and verifies the chain', async () => {
      await emitMany(5);
      expect(await store.count()).toBe(5);
      expect(await audit.verify()).toEqual({ ok: true, count: 5 });
    });

    it('chains events appended together (one batch) in a verifiable order', async () => {
      await emitMany(1);
      await Promise.all(Array.from({ length: 20 }, (_, i) => audit.emit({ event_type: `burst.${i}`, category: 'test', result: 'deny' })));
      expect(await audit.verify()).toEqual({ ok: true, count: 21 });
    });

    it('links each event with the hash eventHash gives, for text JSON escapes and text beyond ASCII', async () => {
      const awkward = ['Grüße, 東京 🚀', 'quote " backslash \\ slash /', 'line\nbreak\ttab\r', 'bell \u0007', 'separators \u2028 \u2029', ''];
      const events = await Promise.all(awkward.map((text, i) => audit.emit({
        event_type: `text.${i}`, category: 'test', result: 'allow', actor: text, action: text,
        // The detail is stored as JSON, which spells out what a text column may not hold.
        detail: { text, nested: { list: [text, i, null, true] }, escaped: 'nul \u0000 lone surrogate \ud800' },
      })));
      const stored: string[] = [];
      for await (const event of store.exportChain({})) stored.push(event.hash);
      expect(stored).toEqual(chainHashes(events));
      expect(await audit.verify()).toEqual({ ok: true, count: awkward.length });
    });

    it('stores a lone surrogate or NUL in a text field as U+FFFD, hashed as stored; the detail keeps them byte for byte', async () => {
      const odd = { high: 'a\ud800b', low: 'a\udc00b', pair: 'a\ud83d\ude80b', nul: 'a\u0000b' };
      const storable = { high: 'a\uFFFDb', low: 'a\uFFFDb', pair: 'a\ud83d\ude80b', nul: 'a\uFFFDb' };
      const events: AuditEvent[] = [];
      for (const [name, text] of Object.entries(odd)) {
        events.push(await audit.emit({
          event_type: `text.${name}${text}`, category: `test${text}`, result: 'allow',
          actor: text, source: text, subsystem: text, action: text, session_id: text, task_id: text,
          detail: { text, [text]: 'as a key' }, request_id: text,
        }));
      }
      const fields = ['actor', 'source', 'subsystem', 'action', 'session_id', 'task_id'] as const;
      for (const [i, name] of (['high', 'low', 'pair', 'nul'] as const).entries()) {
        const event = events[i]!;
        expect(fields.map((field) => event[field])).toEqual(fields.map(() => storable[name]));
        expect([event.event_type, event.category]).toEqual([`text.${name}${storable[name]}`, `test${storable[name]}`]);
        expect(event.detail).toEqual({ text: odd[name], [odd[name]]: 'as a key', request_id: odd[name] });
        expect(Object.keys(event.detail)).toEqual(['text', odd[name], 'request_id']);
      }
      // Read back: the same strings the hash covered, and the detail with its original characters.
      const stored: AuditEvent[] = [];
      const hashes: string[] = [];
      for await (const { prev_hash: _prev, hash, ...event } of store.exportChain({})) {
        stored.push(event);
        hashes.push(hash);
      }
      expect(stored).toEqual(events);
      expect(hashes).toEqual(chainHashes(events));
      // The column holds U+FFFD: an exact filter on it finds the three events that had an odd character.
      const page = await store.query({ actor: storable.high, limit: 10, offset: 0 });
      expect(page.events.map((event) => event.event_type).sort()).toEqual(['high', 'low', 'nul'].map((name) => `text.${name}a\uFFFDb`));
      expect(await audit.verify()).toEqual({ ok: true, count: 4 });
    });

    it('adds the request id to the detail last, or in the place the detail already gave it', async () => {
      const appended = await audit.emit({ event_type: 't', category: 'test', result: 'allow', detail: { a: 1, b: 2 }, request_id: 'req_1' });
      const replaced = await audit.emit({ event_type: 't', category: 'test', result: 'allow', detail: { request_id: 'old', b: 2 }, request_id: 'req_2' });
      const alone = await audit.emit({ event_type: 't', category: 'test', result: 'allow', request_id: 'req_3' });
      expect([JSON.stringify(appended.detail), JSON.stringify(replaced.detail), JSON.stringify(alone.detail)])
        .toEqual(['{"a":1,"b":2,"request_id":"req_1"}', '{"request_id":"req_2","b":2}', '{"request_id":"req_3"}']);
      expect(await audit.verify()).toEqual({ ok: true, count: 3 });
    });

    it('rejects an event it cannot store and keeps the chain intact', async () => {
      await emitMany(2);
      const [good] = await emitMany(1);
      const broken = { ...good!, id: 'evt_broken', category: null } as unknown as AuditEvent;
      await expect(store.append(broken)).rejects.toThrow();
      await emitMany(2);
      expect(await audit.verify()).toEqual({ ok: true, count: 5 });
    });

    it('redacts in the AuditLog: what reaches the store carries no secret', async () => {
      const secret = 'sk-ant-api03-NEVERSTOREDxxxxxxxxxxxxxxxx';
      const event = await audit.emit({
        event_type: 'test.secret', category: 'test', result: 'allow', actor: `operator ${secret}`,
        detail: { note: `key ${secret}`, api_key: 'plain-value-under-key', prompt_tokens: 42 },
      });
      expect(event.detail).toEqual({ note: 'key [REDACTED]', api_key: '[REDACTED]', prompt_tokens: 42 });
      expect(event.actor).toBe('operator [REDACTED]');
      expect(JSON.stringify(event)).not.toContain('NEVERSTORED');
      expect(await audit.verify()).toEqual({ ok: true, count: 1 });
    });

    describe('pruneBefore', () => {
      it('removes only older events and records the range; the chain still verifies', async () => {
        const old = await emitMany(4, 'old.event');
        const cutoff = new Date(clock).toISOString();
        const kept = await emitMany(3, 'kept.event');
        const hashes = chainHashes([...old, ...kept]);
        const { ranges, record } = recorder();

        expect(await store.pruneBefore(cutoff, record)).toBe(4);

        expect(ranges).toEqual([{
          removed: 4,
          // The oldest kept event links to this hash.
          last_hash: hashes[3],
          first_timestamp: old[0]!.timestamp,
          last_timestamp: old[3]!.timestamp,
        }]);
        // The three kept ones and the pruning record.
        expect(await store.count()).toBe(4);
        expect(await store.verify()).toEqual({ ok: true, count: 4 });
        await emitMany(2);
        expect(await store.verify()).toEqual({ ok: true, count: 6 });
      });

      it('records every slice of a large prune, the ranges adding up to what went', async () => {
        const old = await emitMany(60, 'old.event');
        const cutoff = new Date(clock).toISOString();
        await emitMany(2, 'kept.event');
        const hashes = chainHashes(old);
        const { ranges, record } = recorder();

        expect(await store.pruneBefore(cutoff, record)).toBe(60);

        expect(ranges.reduce((sum, r) => sum + r.removed, 0)).toBe(60);
        expect(ranges[0]!.first_timestamp).toBe(old[0]!.timestamp);
        expect(ranges.at(-1)!.last_timestamp).toBe(old[59]!.timestamp);
        // Each range ends where the events it removed end, oldest first.
        let through = 0;
        for (const range of ranges) {
          through += range.removed;
          expect(range.last_hash).toBe(hashes[through - 1]);
        }
        expect(await store.count()).toBe(2 + ranges.length);
        expect(await store.verify()).toEqual({ ok: true, count: 2 + ranges.length });
      });

      it('can prune its own pruning records later and still verify', async () => {
        await emitMany(3, 'old.event');
        clock += DAY_MS;
        expect(await audit.prune(0.5)).toBe(3);
        await emitMany(2, 'middle.event');
        clock += DAY_MS;
        // The first pruning record and the middle events are now old too.
        expect(await audit.prune(0.5)).toBe(3);
        expect(await audit.count()).toBe(1);
        await emitMany(1);
        expect(await audit.verify()).toEqual({ ok: true, count: 2 });
      });

      it('AuditLog.prune builds the record from the age in days', async () => {
        await emitMany(2, 'old.event');
        clock += 10 * DAY_MS;
        await emitMany(1, 'recent.event');
        expect(await audit.prune(7)).toBe(2);
        expect(await audit.count()).toBe(2);
        expect(await audit.verify()).toEqual({ ok: true, count: 2 });
      });

      it('removes nothing and records nothing when no event is older', async () => {
        await emitMany(3);
        const { ranges, record } = recorder();
        expect(await store.pruneBefore(new Date(START - DAY_MS).toISOString(), record)).toBe(0);
        expect(ranges).toEqual([]);
        expect(await store.count()).toBe(3);
      });

      it('removes nothing when the signal is already aborted', async () => {
        await emitMany(3);
        const controller = new AbortController();
        controller.abort();
        const { ranges, record } = recorder();
        expect(await store.pruneBefore(new Date(clock + DAY_MS).toISOString(), record, { signal: controller.signal })).toBe(0);
        expect(ranges).toEqual([]);
        expect(await store.verify()).toEqual({ ok: true, count: 3 });
      });
    });
  });
}
