import { afterEach, describe, expect, it } from 'vitest';
import type { SessionStore } from '../ports/sessions.js';
import type { SessionStoreOptions } from '../ports/storage.js';

/** The behaviour every `SessionStore` backend must have, through the interface only; `open` builds an empty store. */
export type OpenSessionStore = (options: SessionStoreOptions) => Promise<{ store: SessionStore; close(): Promise<void> }>;

export function describeSessionStore(backend: string, open: OpenSessionStore): void {
  describe(`SessionStore contract (${backend})`, () => {
    let close: (() => Promise<void>) | undefined;
    const store = async (options: SessionStoreOptions = {}) => {
      const opened = await open(options);
      close = opened.close;
      return opened.store;
    };
    afterEach(async () => {
      await close?.();
      close = undefined;
    });

    it('lists most recently used first and moves a used session to the front', async () => {
      let clock = Date.parse('2026-01-01T00:00:00.000Z');
      const sessions = await store({ now: () => ++clock });
      const a = await sessions.create({ name: 'a', provider: 'offline' });
      const b = await sessions.create({ provider: 'offline' });
      const c = await sessions.create({ provider: 'offline' });
      expect((await sessions.list(10)).map((s) => s.id)).toEqual([c.id, b.id, a.id]);
      await sessions.touch(a.id);
      expect((await sessions.list(2)).map((s) => s.id)).toEqual([a.id, c.id]);
      const touched = (await sessions.get(a.id))!;
      expect(touched.last_used_at > touched.created_at).toBe(true);
      expect(b.name).toBeNull();
      expect(a).toEqual({ id: expect.stringMatching(/^ses_/), name: 'a', provider: 'offline', created_at: '2026-01-01T00:00:00.001Z', last_used_at: '2026-01-01T00:00:00.001Z', turn_count: 0 });
      expect(await sessions.get('ses_unknown')).toBeNull();
    });

    it('ends the least recently used idle session past the bound, never a busy one', async () => {
      const ended: string[] = [];
      const busy = new Set<string>();
      const sessions = await store({ max: 3, isBusy: (id) => busy.has(id), onEnd: (id) => ended.push(id) });
      const a = await sessions.create({ provider: 'p' });
      const b = await sessions.create({ provider: 'p' });
      const c = await sessions.create({ provider: 'p' });
      busy.add(a.id);
      const d = await sessions.create({ provider: 'p' });
      expect(ended).toEqual([b.id]);
      expect(await sessions.count()).toBe(3);
      expect(await sessions.get(a.id)).not.toBeNull();
      busy.add(c.id).add(d.id);
      await expect(sessions.create({ provider: 'p' })).rejects.toThrow(/all 3 API sessions are busy/);
      expect(await sessions.count()).toBe(3);
    });

    it('counts turns and ends sessions once', async () => {
      const ended: string[] = [];
      const sessions = await store({ onEnd: (id) => ended.push(id) });
      const s = await sessions.create({ provider: 'offline' });
      await sessions.addTurns(s.id, 2);
      await Promise.all([sessions.addTurns(s.id, 1), sessions.addTurns(s.id, 1)]);
      expect((await sessions.get(s.id))!.turn_count).toBe(4);
      expect(await sessions.delete(s.id)).toBe(true);
      expect(await sessions.delete(s.id)).toBe(false);
      await sessions.addTurns(s.id, 2);
      expect(await sessions.get(s.id)).toBeNull();
      expect(ended).toEqual([s.id]);
    });

    it('hands out copies: a caller cannot change a stored session', async () => {
      const sessions = await store();
      const s = await sessions.create({ provider: 'offline' });
      s.turn_count = 99;
      (await sessions.get(s.id))!.name = 'changed';
      expect(await sessions.get(s.id)).toMatchObject({ turn_count: 0, name: null });
    });
  });
}
