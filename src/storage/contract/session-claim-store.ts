import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionClaim, SessionClaimStore } from '../ports/sessions.js';

/**
 * The behaviour every `SessionClaimStore` backend must have, through the interface only. `other`
 * is the same data as another replica holds it (another owner), where the backend is shared.
 */
export type OpenSessionClaimStore = () => Promise<{ store: SessionClaimStore; owner: string; other?: SessionClaimStore; close(): Promise<void> }>;

/** Second `s` of the test's minute, as the ISO 8601 the store compares. */
const at = (s: number): string => `2026-01-01T00:00:${String(s).padStart(2, '0')}.000Z`;
const claim = (session: string, holder: string, expiresAt: number, kind: SessionClaim['kind'] = 'run') =>
  ({ session_id: session, holder_id: holder, kind, expires_at: at(expiresAt) });

/**
 * `sharedByReplicas`: the backend is one store for several replicas (then `open` gives `other`), so
 * the cross-replica cases apply; an in-process store has no other replica to test against.
 */
export function describeSessionClaimStore(backend: string, open: OpenSessionClaimStore, { sharedByReplicas }: { sharedByReplicas: boolean }): void {
  describe(`SessionClaimStore contract (${backend})`, () => {
    let claims: SessionClaimStore;
    let owner: string;
    let other: SessionClaimStore | undefined;
    let close: () => Promise<void>;

    beforeEach(async () => {
      ({ store: claims, owner, other, close } = await open());
    });
    afterEach(async () => {
      await close();
    });

    it('gives a session to one holder until it releases it; another holder is refused meanwhile', async () => {
      expect(await claims.acquire(claim('ses_1', 'run_1', 30), at(0))).toBe(true);
      expect(await claims.acquire(claim('ses_1', 'chat_2', 31, 'chat'), at(1))).toBe(false);
      expect(await claims.holder('ses_1', at(1))).toEqual({ ...claim('ses_1', 'run_1', 30), owner });
      // Another session is unaffected.
      expect(await claims.acquire(claim('ses_2', 'chat_3', 31, 'chat'), at(1))).toBe(true);
      // Only the holder's release frees it.
      await claims.release('ses_1', 'chat_2');
      expect((await claims.holder('ses_1', at(2)))?.holder_id).toBe('run_1');
      await claims.release('ses_1', 'run_1');
      expect(await claims.holder('ses_1', at(2))).toBeNull();
      expect(await claims.acquire(claim('ses_1', 'chat_2', 32, 'chat'), at(2))).toBe(true);
      expect((await claims.holder('ses_1', at(2)))?.kind).toBe('chat');
    });

    it('lets an expired claim be taken over, and renewing keeps only the listed holders', async () => {
      expect(await claims.acquire(claim('ses_1', 'run_1', 10), at(0))).toBe(true);
      expect(await claims.acquire(claim('ses_2', 'run_2', 10), at(0))).toBe(true);
      await claims.renew(['run_1'], at(40));
      expect(await claims.holder('ses_2', at(10))).toBeNull();
      expect(await claims.acquire(claim('ses_2', 'run_3', 50), at(10))).toBe(true);
      expect(await claims.acquire(claim('ses_1', 'run_4', 50), at(39))).toBe(false);
      expect(await claims.acquire(claim('ses_1', 'run_4', 50), at(40))).toBe(true);
      expect((await claims.holder('ses_1', at(41)))?.holder_id).toBe('run_4');
      // The replaced holder's late release does not free its successor's claim.
      await claims.release('ses_1', 'run_1');
      expect((await claims.holder('ses_1', at(41)))?.holder_id).toBe('run_4');
    });

    it('drops every claim of its owner at start, and never reaps its own expired claims', async () => {
      expect(await claims.acquire(claim('ses_1', 'run_1', 10), at(0))).toBe(true);
      expect(await claims.acquire(claim('ses_2', 'chat_2', 10, 'chat'), at(0))).toBe(true);
      expect(await claims.reapExpired(at(20), 'stopped', 10)).toEqual([]);
      expect(await claims.holder('ses_1', at(5))).not.toBeNull();
      await claims.releaseOwn();
      expect(await claims.holder('ses_1', at(5))).toBeNull();
      expect(await claims.holder('ses_2', at(5))).toBeNull();
    });

    if (!sharedByReplicas) return;
    describe('shared by several replicas', () => {
      it('refuses a session another replica holds, and leaves that replica its claims', async () => {
        if (!other) throw new Error('a store shared by replicas must open another replica\'s view');
        expect(await claims.acquire(claim('ses_1', 'run_1', 30), at(0))).toBe(true);
        expect(await other.acquire(claim('ses_1', 'run_2', 31), at(1))).toBe(false);
        expect((await other.holder('ses_1', at(1)))?.owner).toBe(owner);
        await other.renew(['run_1'], at(59));
        await other.releaseOwn();
        await other.release('ses_1', 'run_2');
        expect(await other.holder('ses_1', at(29))).toEqual({ ...claim('ses_1', 'run_1', 30), owner });
        expect(await other.holder('ses_1', at(30))).toBeNull();
      });

      it('reaps the expired claims of a stopped replica once, leaving the live ones', async () => {
        if (!other) throw new Error('a store shared by replicas must open another replica\'s view');
        expect(await claims.acquire(claim('ses_1', 'chat_1', 10, 'chat'), at(0))).toBe(true);
        expect(await claims.acquire(claim('ses_2', 'chat_2', 30, 'chat'), at(0))).toBe(true);
        expect(await other.reapExpired(at(9), 'stopped', 10)).toEqual([]);
        // An owner seen alive is spared: its expired claims wait for its liveness to be judged.
        expect(await other.reapExpired(at(10), 'stopped', 10, [owner])).toEqual([]);
        const reaped = await other.reapExpired(at(10), 'stopped', 10);
        expect(reaped).toEqual([{ ...claim('ses_1', 'chat_1', 10, 'chat'), owner }]);
        expect(await other.reapExpired(at(10), 'stopped', 10)).toEqual([]);
        expect(await other.acquire(claim('ses_1', 'chat_3', 40, 'chat'), at(10))).toBe(true);
        expect((await claims.holder('ses_2', at(10)))?.holder_id).toBe('chat_2');
      });

      it('reaps the claims of a replica judged stopped before they expire, up to the renewal the judge saw, never its own', async () => {
        if (!other) throw new Error('a store shared by replicas must open another replica\'s view');
        expect(await other.renewedBy(owner)).toBeNull();
        expect(await claims.acquire(claim('ses_1', 'chat_1', 30, 'chat'), at(0))).toBe(true);
        expect(await claims.acquire(claim('ses_2', 'chat_2', 40, 'chat'), at(0))).toBe(true);
        expect(await other.renewedBy(owner)).toBe(at(40));
        // Nothing reaped where no renewal was seen, and a replica never reaps itself.
        expect(await other.reapOwner(owner, null, at(1), 'stopped', 10)).toEqual([]);
        expect(await claims.reapOwner(owner, at(59), at(1), 'stopped', 10)).toEqual([]);
        // A claim taken or renewed after the judge looked (its lease ends later) is left.
        const reaped = await other.reapOwner(owner, at(30), at(1), 'stopped', 10);
        expect(reaped).toEqual([{ ...claim('ses_1', 'chat_1', 30, 'chat'), owner }]);
        expect((await other.holder('ses_2', at(1)))?.holder_id).toBe('chat_2');
        expect(await other.reapOwner(owner, at(30), at(1), 'stopped', 10)).toEqual([]);
        expect(await other.acquire(claim('ses_1', 'chat_3', 50, 'chat'), at(1))).toBe(true);
        expect(await other.reapOwner('rep_nobody', at(59), at(1), 'stopped', 10)).toEqual([]);
      });
    });
  });
}
