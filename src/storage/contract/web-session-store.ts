import { afterEach, describe, expect, it } from 'vitest';
import type { WebSessionStore } from '../ports/web-sessions.js';
import type { WebSessionStoreOptions } from '../ports/storage.js';

/** The behaviour every `WebSessionStore` backend must have, through the interface only; `open` builds an empty store. */
export type OpenWebSessionStore = (options: WebSessionStoreOptions) => Promise<{ store: WebSessionStore; close(): Promise<void> }>;

export function describeWebSessionStore(backend: string, open: OpenWebSessionStore): void {
  describe(`WebSessionStore contract (${backend})`, () => {
    let close: (() => Promise<void>) | undefined;
    let now = 0;
    const store = async (maxSessions = 3) => {
      const opened = await open({ ttlSeconds: 60, maxSessions, now: () => now });
      close = opened.close;
      return opened.store;
    };
    afterEach(async () => {
      await close?.();
      close = undefined;
      now = 0;
    });

    it('is bounded (oldest evicted first), forgets expired sessions, and finds a session by its token only', async () => {
      now = 1_000_000;
      const sessions = await store();
      expect(sessions.ttlSeconds).toBe(60);
      const a = await sessions.create();
      now += 10_000;
      const b = await sessions.create();
      const c = await sessions.create();
      const d = await sessions.create();
      expect(await sessions.lookup(a.token)).toBeNull();
      expect(await sessions.lookup(b.token)).toEqual(b.session);
      expect(b.session).toEqual({ id: expect.stringMatching(/^ws_/), csrfToken: expect.any(String), createdAt: 1_010_000, expiresAt: 1_070_000 });
      expect((await sessions.lookup(d.token))?.id).toBe(d.session.id);
      expect(await sessions.lookup(b.session.csrfToken)).toBeNull();
      expect(await sessions.lookup('not a token')).toBeNull();
      now += 60_000;
      expect(await sessions.lookup(c.token)).toBeNull();
    });

    it('revokes a session once', async () => {
      const sessions = await store();
      const a = await sessions.create();
      const b = await sessions.create();
      expect(await sessions.revoke(a.token)).toBe(true);
      expect(await sessions.revoke(a.token)).toBe(false);
      expect(await sessions.revoke('not a token')).toBe(false);
      expect(await sessions.lookup(a.token)).toBeNull();
      expect((await sessions.lookup(b.token))?.id).toBe(b.session.id);
    });
  });
}
