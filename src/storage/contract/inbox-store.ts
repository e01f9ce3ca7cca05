import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEvent, AuditStore, ChainedAuditEvent } from '../ports/audit.js';
import type { InboxStore, NewInboxMessage } from '../ports/inbox.js';

/**
 * The behaviour every `InboxStore` backend must have, through the interface only. `second` is
 * another handle on the same data (another connection or pool), as a second replica would hold;
 * `audit` is the audit log of the same storage as `store`.
 */
export type OpenInboxStore = () => Promise<{ store: InboxStore; second: InboxStore; audit: AuditStore; close(): Promise<void> }>;

const message = (n: number, extra: Partial<NewInboxMessage> = {}): NewInboxMessage => ({
  channel: 'webhook', sender: 'ci', content: `task ${n}`, metadata: { webhook_headers: { 'x-request-id': `req-${n}` } },
  received_at: `2026-01-01T00:00:${String(n).padStart(2, '0')}.000Z`, request_id: `req-${n}`, run_id: `run_${n}`,
  ...extra,
});
const RULES = { duplicatesSince: '2025-12-31T00:00:00.000Z', capacity: 1000 };
const acceptEvent = (n: number) => (duplicate: boolean): AuditEvent => ({
  id: `evt_${n}`, timestamp: `2026-01-01T00:00:${String(n).padStart(2, '0')}.000Z`, event_type: 'webhook.accept', category: 'webhook',
  result: 'allow', severity: 'info', actor: null, source: '127.0.0.1', subsystem: 'webhook', action: null, session_id: null,
  task_id: null, detail: duplicate ? { n, duplicate } : { n },
});

export function describeInboxStore(backend: string, open: OpenInboxStore): void {
  describe(`InboxStore contract (${backend})`, () => {
    let inbox: InboxStore;
    let second: InboxStore;
    let audit: AuditStore;
    let close: () => Promise<void>;

    beforeEach(async () => {
      ({ store: inbox, second, audit, close } = await open());
    });
    afterEach(async () => {
      await close();
    });

    it('keeps accepted messages waiting, oldest first, with everything they were accepted with', async () => {
      expect(await inbox.accept(message(1), RULES)).toBe('queued');
      expect(await inbox.accept(message(2, { sender: 'other', request_id: null }), RULES)).toBe('queued');
      const waiting = await inbox.waiting('webhook', 10);
      expect(waiting.map(({ id: _id, ...rest }) => rest)).toEqual([message(1), message(2, { sender: 'other', request_id: null })]);
      expect(waiting[0]!.id).toBeLessThan(waiting[1]!.id);
      expect(await inbox.waiting('webhook', 1)).toHaveLength(1);
      expect(await inbox.waiting('other-channel', 10)).toEqual([]);
    });

    it('commits the audit event of an acceptance, or of a duplicate, before it answers, linked into the chain', async () => {
      expect(await inbox.accept(message(1), { ...RULES, audit: acceptEvent(1) })).toBe('queued');
      expect(await inbox.accept(message(2, { request_id: 'req-1' }), { ...RULES, audit: acceptEvent(2) })).toBe('duplicate');
      // An event that cannot be made fails the acceptance; a store of one process keeps no message
      // without its event (a shared one committed the message first: the sender's retry is a duplicate).
      const unbuildable = () => {
        throw new Error('no event');
      };
      await expect(inbox.accept(message(3), { ...RULES, audit: unbuildable })).rejects.toThrow('no event');
      // A refusal records nothing through the rule.
      expect(await inbox.accept(message(4), { ...RULES, capacity: inbox.sharedByReplicas ? 2 : 1, audit: acceptEvent(4) })).toBe('full');
      expect((await inbox.waiting('webhook', 10)).map((m) => m.run_id)).toEqual(inbox.sharedByReplicas ? ['run_1', 'run_3'] : ['run_1']);
      const chain: ChainedAuditEvent[] = [];
      for await (const event of audit.exportChain({})) chain.push(event);
      expect(chain.map((event) => [event.id, event.detail])).toEqual([['evt_1', { n: 1 }], ['evt_2', { n: 2, duplicate: true }]]);
      expect(chain[1]!.prev_hash).toBe(chain[0]!.hash);
      expect(await audit.verify()).toEqual({ ok: true, count: 2 });
    });

    it('answers duplicate for a key seen since the window start, and stores nothing for it', async () => {
      await inbox.accept(message(1), RULES);
      expect(await inbox.accept(message(2, { request_id: 'req-1' }), RULES)).toBe('duplicate');
      // Outside the window the same key is a new message.
      expect(await inbox.accept(message(3, { request_id: 'req-1' }), { ...RULES, duplicatesSince: '2026-01-01T00:00:02.000Z' })).toBe('queued');
      // Messages without a key are never duplicates of each other.
      expect(await inbox.accept(message(4, { request_id: null }), RULES)).toBe('queued');
      expect(await inbox.accept(message(5, { request_id: null }), RULES)).toBe('queued');
      expect((await inbox.waiting('webhook', 10)).map((m) => m.run_id)).toEqual(['run_1', 'run_3', 'run_4', 'run_5']);
    });

    it('decides duplicates exactly when the same key arrives concurrently', async () => {
      const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => inbox.accept(message(i, { request_id: 'same' }), RULES)));
      expect(outcomes.filter((o) => o === 'queued')).toHaveLength(1);
      expect(await inbox.waiting('webhook', 100)).toHaveLength(1);
    });

    it('a started message still catches its duplicates but no longer waits', async () => {
      await inbox.accept(message(1), RULES);
      const [stored] = await inbox.waiting('webhook', 10);
      await inbox.markStarted(stored!.run_id);
      expect(await inbox.waiting('webhook', 10)).toEqual([]);
      expect(await inbox.accept(message(2, { request_id: 'req-1' }), RULES)).toBe('duplicate');
    });

    it('is full at capacity waiting messages, counting only waiting ones', async () => {
      const rules = { ...RULES, capacity: 3 };
      for (let i = 1; i <= 3; i++) expect(await inbox.accept(message(i), rules)).toBe('queued');
      expect(await inbox.accept(message(4), rules)).toBe('full');
      const outcomes = await Promise.all([inbox.accept(message(5), rules), inbox.accept(message(6), rules)]);
      expect(outcomes).toEqual(['full', 'full']);
      const [first] = await inbox.waiting('webhook', 1);
      await inbox.markStarted(first!.run_id);
      expect(await inbox.accept(message(7), rules)).toBe('queued');
      expect(await inbox.accept(message(8), rules)).toBe('full');
      // A full message is not remembered: its retry, once there is room, is queued.
      const [second] = await inbox.waiting('webhook', 1);
      await inbox.markStarted(second!.run_id);
      expect(await inbox.accept(message(8), rules)).toBe('queued');
    });

    it('prunes started messages received before the cutoff, never waiting ones', async () => {
      for (let i = 1; i <= 4; i++) await inbox.accept(message(i), RULES);
      const waiting = await inbox.waiting('webhook', 10);
      await inbox.markStarted(waiting[0]!.run_id);
      await inbox.markStarted(waiting[2]!.run_id);
      expect(await inbox.pruneStartedBefore('2026-01-01T00:00:03.500Z')).toBe(2);
      expect((await inbox.waiting('webhook', 10)).map((m) => m.run_id)).toEqual(['run_2', 'run_4']);
      // Its key went with it.
      expect(await inbox.accept(message(9, { request_id: 'req-1' }), RULES)).toBe('queued');
      expect(await inbox.pruneStartedBefore('2026-01-01T00:00:03.500Z')).toBe(0);
    });

    it('keeps each sender\'s request ids apart, compared exactly', async () => {
      expect(await inbox.accept(message(1, { sender: 'alice', request_id: 'deploy-42' }), RULES)).toBe('queued');
      expect(await inbox.accept(message(2, { sender: 'bob', request_id: 'deploy-42' }), RULES)).toBe('queued');
      expect(await second.accept(message(3, { sender: 'Alice', request_id: 'deploy-42' }), RULES)).toBe('queued');
      expect(await second.accept(message(4, { sender: 'alice', request_id: 'Deploy-42' }), RULES)).toBe('queued');
      expect(await second.accept(message(5, { sender: 'alice', request_id: 'deploy-42 ' }), RULES)).toBe('queued');
      expect(await second.accept(message(6, { sender: 'alice', request_id: 'deploy-42' }), RULES)).toBe('duplicate');
      expect((await inbox.waiting('webhook', 10)).map((m) => m.run_id)).toEqual(['run_1', 'run_2', 'run_3', 'run_4', 'run_5']);
    });

    it('answers conflict for a repeated key whose content digest differs, duplicate when it is the same or unknown', async () => {
      await inbox.accept(message(1, { body_digest: 'aaa' }), RULES);
      expect(await second.accept(message(2, { request_id: 'req-1', body_digest: 'bbb' }), RULES)).toBe('conflict');
      expect(await second.accept(message(3, { request_id: 'req-1', body_digest: 'aaa' }), RULES)).toBe('duplicate');
      // Stored before digests were kept: a repeat is taken for a retry.
      await inbox.accept(message(4, { body_digest: null }), RULES);
      expect(await inbox.accept(message(5, { request_id: 'req-4', body_digest: 'ccc' }), RULES)).toBe('duplicate');
      // The digest outlives the text: a started message still tells a conflict from a retry.
      await inbox.markStarted('run_1');
      expect(await inbox.accept(message(6, { request_id: 'req-1', body_digest: 'bbb' }), RULES)).toBe('conflict');
      expect((await inbox.waiting('webhook', 10)).map((m) => m.run_id)).toEqual(['run_4']);
    });

    describe('signatures', () => {
      const at = (s: number) => new Date(Date.parse('2026-01-01T00:10:00.000Z') + s * 1000).toISOString();
      const signed = (signature: string, now: number, expires = now + 301, pruneBefore = now) =>
        ({ ...RULES, signature: { signature, expiresAt: at(expires), now: at(now), pruneBefore: at(pruneBefore) } });

      it('stores a message with a live signature once, on any handle, until the signature expires', async () => {
        expect(await inbox.accept(message(1, { request_id: null }), signed('sha256=aa', 0))).toBe('queued');
        expect(await second.accept(message(2, { request_id: null }), signed('sha256=aa', 10))).toBe('replay');
        expect(await inbox.accept(message(3, { request_id: null }), signed('sha256=aa', 300))).toBe('replay');
        expect(await inbox.accept(message(4, { request_id: null }), signed('sha256=bb', 10))).toBe('queued');
        // Expired (at 301): accepted again and recorded anew.
        expect(await second.accept(message(5, { request_id: null }), signed('sha256=aa', 301, 700))).toBe('queued');
        expect(await inbox.accept(message(6, { request_id: null }), signed('sha256=aa', 650))).toBe('replay');
        expect((await inbox.waiting('webhook', 10)).map((m) => m.run_id)).toEqual(['run_1', 'run_4', 'run_5']);
      });

      it('checks the signature before the request id, and records nothing for a message it does not store', async () => {
        await inbox.accept(message(1), signed('sha256=aa', 0));
        expect(await inbox.accept(message(2, { request_id: 'req-1' }), signed('sha256=aa', 1))).toBe('replay');
        // A duplicate or a full channel keeps no record: the same signature may still be accepted.
        expect(await inbox.accept(message(3, { request_id: 'req-1' }), signed('sha256=dup', 1))).toBe('duplicate');
        expect(await inbox.accept(message(4, { request_id: null }), { ...signed('sha256=full', 1), capacity: 1 })).toBe('full');
        expect(await inbox.accept(message(5, { request_id: null }), signed('sha256=dup', 2))).toBe('queued');
        expect(await inbox.accept(message(6, { request_id: null }), signed('sha256=full', 2))).toBe('queued');
        expect((await inbox.waiting('webhook', 10)).map((m) => m.run_id)).toEqual(['run_1', 'run_5', 'run_6']);
      });

      it('compares signatures exactly and keeps channels apart', async () => {
        await inbox.accept(message(1, { request_id: null }), signed('sha256=aa', 0));
        expect(await inbox.accept(message(2, { request_id: null }), signed('sha256=aa ', 0))).toBe('queued');
        expect(await inbox.accept(message(3, { request_id: null, channel: 'other' }), signed('sha256=aa', 0))).toBe('queued');
      });

      it('stores exactly one of many messages with the same signature arriving at once on two handles', async () => {
        const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? second : inbox).accept(message(i, { request_id: null }), signed('sha256=race', 0))));
        expect(outcomes.filter((o) => o === 'queued')).toHaveLength(1);
        expect(outcomes.filter((o) => o === 'replay')).toHaveLength(19);
        expect(await inbox.waiting('webhook', 100)).toHaveLength(1);
      });

      it('prunes records that expired before the cutoff, and a few expired ones with each new record', async () => {
        for (let i = 1; i <= 5; i++) await inbox.accept(message(i, { request_id: null }), signed(`sha256=${i}`, 0, i * 100));
        // Expired at 100 and 200; the one at 300 is not before the cutoff.
        expect(await inbox.pruneSignaturesBefore(at(300))).toBe(2);
        expect(await inbox.pruneSignaturesBefore(at(300))).toBe(0);
        // Pruned ones no longer count (they had expired anyway); live ones still do.
        expect(await inbox.accept(message(6, { request_id: null }), signed('sha256=5', 450))).toBe('replay');
        // A new record takes up to two records that expired before its prune point with it.
        expect(await inbox.accept(message(7, { request_id: null }), signed('sha256=new', 460, 900, 460))).toBe('queued');
        expect(await inbox.pruneSignaturesBefore(at(460))).toBe(0);
        expect(await inbox.pruneSignaturesBefore(at(10_000))).toBe(2);
      });
    });

    describe('claim', () => {
      const T = (s: number) => new Date(Date.parse('2026-01-01T00:01:00.000Z') + s * 1000).toISOString();
      const claim = (store: InboxStore, owner: string, at: number, limit = 10) =>
        store.claim('webhook', { owner, now: T(at), until: T(at + 30), limit }).then((taken) => taken.map((m) => m.run_id));

      it('takes the oldest waiting message of each sender, oldest first, with everything it was accepted with', async () => {
        await inbox.accept(message(1, { sender: 'a' }), RULES);
        await inbox.accept(message(2, { sender: 'b' }), RULES);
        await inbox.accept(message(3, { sender: 'a' }), RULES);
        await inbox.accept(message(4, { sender: 'c' }), RULES);
        const taken = await inbox.claim('webhook', { owner: 'r1', now: T(0), until: T(30), limit: 10 });
        expect(taken.map(({ id: _id, ...rest }) => rest)).toEqual([message(1, { sender: 'a' }), message(2, { sender: 'b' }), message(4, { sender: 'c' })]);
        expect(await inbox.claim('other-channel', { owner: 'r1', now: T(0), until: T(30), limit: 10 })).toEqual([]);
      });

      it('gives a sender\'s next message once the previous one has started', async () => {
        for (let i = 1; i <= 3; i++) await inbox.accept(message(i), RULES);
        expect(await claim(inbox, 'r1', 0)).toEqual(['run_1']);
        await inbox.markStarted('run_1');
        expect(await claim(second, 'r2', 1)).toEqual(['run_2']);
        expect(await claim(inbox, 'r1', 2)).toEqual([]);
      });

      it('keeps a claimed message from other owners until the claim ends; its owner renews it by claiming again', async () => {
        await inbox.accept(message(1), RULES);
        expect(await claim(inbox, 'r1', 0)).toEqual(['run_1']);
        expect(await claim(second, 'r2', 10)).toEqual([]);
        expect(await claim(inbox, 'r1', 20)).toEqual(['run_1']);
        // Renewed at 20 for 30 s: still held at 40, free at 50.
        expect(await claim(second, 'r2', 40)).toEqual([]);
        expect(await claim(second, 'r2', 50)).toEqual(['run_1']);
        expect(await claim(inbox, 'r1', 51)).toEqual([]);
      });

      it('lets other owners take released messages at once', async () => {
        await inbox.accept(message(1, { sender: 'a' }), RULES);
        await inbox.accept(message(2, { sender: 'b' }), RULES);
        expect(await claim(inbox, 'r1', 0)).toEqual(['run_1', 'run_2']);
        await inbox.markStarted('run_1');
        await inbox.release('r1');
        expect(await claim(second, 'r2', 1)).toEqual(['run_2']);
      });

      it('claims a message as it is stored, and a sender\'s next one as the previous starts, on a store of one process only', async () => {
        const terms = (owner: string, at: number) => ({ owner, now: T(at), until: T(at + 30), limit: 10 });
        const own = !inbox.sharedByReplicas;
        expect(await inbox.accept(message(1), { ...RULES, claim: terms('r1', 0) })).toBe(own ? 'claimed' : 'queued');
        // Behind its sender's first one: stored, not claimed.
        expect(await inbox.accept(message(2), { ...RULES, claim: terms('r1', 0) })).toBe('queued');
        expect(await claim(second, 'r2', 1)).toEqual(own ? [] : ['run_1']);
        const next = await inbox.markStarted('run_1', terms('r1', 2));
        if (own) expect(next && { ...next, id: 0 }).toEqual({ ...message(2), id: 0 });
        else expect(next).toBeUndefined();
        // Held by r1 until 32 on a store of one process.
        expect(await claim(second, 'r2', 3)).toEqual(own ? [] : ['run_2']);
        expect(await claim(second, 'r2', 33)).toEqual(['run_2']);
      });

      it('gives starts asked for together each its own sender\'s next message', async () => {
        const terms = { owner: 'r1', now: T(2), until: T(32), limit: 10 };
        const own = !inbox.sharedByReplicas;
        // a: two waiting, b: one, c: two; run_6 is not waiting at all.
        for (const [n, sender] of [[1, 'a'], [2, 'b'], [3, 'c'], [4, 'a'], [5, 'c']] as const) {
          await inbox.accept(message(n, { sender, request_id: null }), RULES);
        }
        const nexts = await Promise.all(['run_1', 'run_2', 'run_3', 'run_6'].map((runId) => inbox.markStarted(runId, terms)));
        expect(nexts.map((next) => next?.run_id)).toEqual(own ? ['run_4', undefined, 'run_5', undefined] : [undefined, undefined, undefined, undefined]);
        expect((await inbox.waiting('webhook', 10)).map((m) => m.run_id)).toEqual(['run_4', 'run_5']);
        // Claimed for r1 in the same commit on a store of one process; free to any claim otherwise.
        expect(await claim(second, 'r2', 3)).toEqual(own ? [] : ['run_4', 'run_5']);
      });

      it('knows what a sender has waiting from the stored messages, also on another handle and after a failed acceptance', async () => {
        const terms = (owner: string, at: number) => ({ owner, now: T(at), until: T(at + 30), limit: 10 });
        const own = !inbox.sharedByReplicas;
        const unbuildable = () => {
          throw new Error('no event');
        };
        // Rolled back: nothing of the sender waits, so its next message may run at once.
        await expect(inbox.accept(message(1), { ...RULES, claim: terms('r1', 0), audit: unbuildable })).rejects.toThrow('no event');
        expect(await inbox.accept(message(2), { ...RULES, claim: terms('r1', 0) })).toBe(own ? 'claimed' : 'queued');
        expect(await inbox.accept(message(3), { ...RULES, claim: terms('r1', 0) })).toBe('queued');
        expect(await inbox.accept(message(4, { sender: 'other' }), { ...RULES, claim: terms('r1', 0) })).toBe(own ? 'claimed' : 'queued');
        // A handle that did not store them finds them waiting: the sender's next one after run_2, none after run_4.
        expect(await second.accept(message(5), { ...RULES, claim: terms('r1', 1) })).toBe('queued');
        const next = await second.markStarted('run_2', terms('r1', 2));
        if (own) expect(next && { ...next, id: 0 }).toEqual({ ...message(3), id: 0 });
        else expect(next).toBeUndefined();
        expect(await second.markStarted('run_4', terms('r1', 2))).toBeUndefined();
        // A store shared by replicas commits a message before its event: the failed one stays.
        expect((await second.waiting('webhook', 10)).map((m) => m.run_id)).toEqual(own ? ['run_3', 'run_5'] : ['run_1', 'run_3', 'run_5']);
      });

      it('respects the limit', async () => {
        for (let i = 1; i <= 5; i++) await inbox.accept(message(i, { sender: `s${i}` }), RULES);
        expect(await claim(inbox, 'r1', 0, 2)).toEqual(['run_1', 'run_2']);
        expect(await claim(second, 'r2', 0, 10)).toEqual(['run_3', 'run_4', 'run_5']);
      });

      it('gives each message to exactly one of several owners claiming at once', async () => {
        for (let i = 1; i <= 40; i++) await inbox.accept(message(i, { sender: `s${i}` }), RULES);
        const handles = [inbox, second, inbox, second];
        const taken = await Promise.all(handles.map((store, n) => claim(store, `r${n}`, 0, 15)));
        const all = taken.flat();
        expect(all).toHaveLength(40);
        expect(new Set(all).size).toBe(40);
      });
    });
  });
}
