import { describe, expect, it } from 'vitest';
import { InMemorySessionStore } from './session-store.js';

describe('InMemorySessionStore', () => {
  it('lists most recently used first and moves a used session to the front', async () => {
    let clock = 0;
    const store = new InMemorySessionStore({ now: () => ++clock });
    const a = await store.create({ name: 'a', provider: 'offline' });
    const b = await store.create({ provider: 'offline' });
    const c = await store.create({ provider: 'offline' });
    expect((await store.list(10)).map((s) => s.id)).toEqual([c.id, b.id, a.id]);
    await store.touch(a.id);
    expect((await store.list(2)).map((s) => s.id)).toEqual([a.id, c.id]);
    const touched = (await store.get(a.id))!;
    expect(touched.last_used_at > touched.created_at).toBe(true);
    expect(b.name).toBeNull();
    expect(a.id).toMatch(/^ses_/);
  });

  it('ends the least recently used idle session past the bound, never a busy one', async () => {
    const ended: string[] = [];
    const busy = new Set<string>();
    const store = new InMemorySessionStore({ max: 3, isBusy: (id) => busy.has(id), onEnd: (id) => ended.push(id) });
    const a = await store.create({ provider: 'p' });
    const b = await store.create({ provider: 'p' });
    const c = await store.create({ provider: 'p' });
    busy.add(a.id);
    const d = await store.create({ provider: 'p' });
    expect(ended).toEqual([b.id]);
    expect(await store.count()).toBe(3);
    expect(await store.get(a.id)).not.toBeNull();
    busy.add(c.id).add(d.id);
    await expect(store.create({ provider: 'p' })).rejects.toThrow(/all 3 API sessions are busy/);
    expect(await store.count()).toBe(3);
  });

  it('counts turns and ends sessions once', async () => {
    const ended: string[] = [];
    const store = new InMemorySessionStore({ onEnd: (id) => ended.push(id) });
    const s = await store.create({ provider: 'offline' });
    await store.addTurns(s.id, 2);
    expect((await store.get(s.id))!.turn_count).toBe(2);
    expect(await store.delete(s.id)).toBe(true);
    expect(await store.delete(s.id)).toBe(false);
    await store.addTurns(s.id, 2);
    expect(await store.get(s.id)).toBeNull();
    expect(ended).toEqual([s.id]);
  });

  it('hands out copies: a caller cannot change a stored session', async () => {
    const store = new InMemorySessionStore();
    const s = await store.create({ provider: 'offline' });
    s.turn_count = 99;
    (await store.get(s.id))!.name = 'changed';
    expect(await store.get(s.id)).toMatchObject({ turn_count: 0, name: null });
  });
});
