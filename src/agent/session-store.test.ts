import { describe, expect, it } from 'vitest';
import { SessionStore } from './session-store.js';

describe('SessionStore', () => {
  it('lists most recently used first and moves a used session to the front', () => {
    let clock = 0;
    const store = new SessionStore({ now: () => ++clock });
    const a = store.create({ name: 'a', provider: 'offline' });
    const b = store.create({ provider: 'offline' });
    const c = store.create({ provider: 'offline' });
    expect(store.list(10).map((s) => s.id)).toEqual([c.id, b.id, a.id]);
    store.touch(a.id);
    expect(store.list(2).map((s) => s.id)).toEqual([a.id, c.id]);
    expect(store.get(a.id)!.last_used_at > store.get(a.id)!.created_at).toBe(true);
    expect(b.name).toBeNull();
    expect(a.id).toMatch(/^ses_/);
  });

  it('ends the least recently used idle session past the bound, never a busy one', () => {
    const ended: string[] = [];
    const busy = new Set<string>();
    const store = new SessionStore({ max: 3, isBusy: (id) => busy.has(id), onEnd: (id) => ended.push(id) });
    const [a, b, c] = [store.create({ provider: 'p' }), store.create({ provider: 'p' }), store.create({ provider: 'p' })];
    busy.add(a!.id);
    const d = store.create({ provider: 'p' });
    expect(ended).toEqual([b!.id]);
    expect(store.size).toBe(3);
    expect(store.get(a!.id)).toBeDefined();
    busy.add(c!.id).add(d.id);
    expect(() => store.create({ provider: 'p' })).toThrow(/all 3 API sessions are busy/);
    expect(store.size).toBe(3);
  });

  it('counts turns and ends sessions once', () => {
    const ended: string[] = [];
    const store = new SessionStore({ onEnd: (id) => ended.push(id) });
    const s = store.create({ provider: 'offline' });
    store.addTurns(s.id, 2);
    expect(store.get(s.id)!.turn_count).toBe(2);
    expect(store.delete(s.id)).toBe(true);
    expect(store.delete(s.id)).toBe(false);
    store.addTurns(s.id, 2);
    expect(ended).toEqual([s.id]);
  });
});
