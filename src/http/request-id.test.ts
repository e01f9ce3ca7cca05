import { describe, expect, it, vi } from 'vitest';

const UUID_V8 = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function freshModule() {
  vi.resetModules();
  return import('./request-id.js');
}

describe('generated request ids', () => {
  it('are version 8 UUIDs, each unique, with nothing shared or counting that tells how many came between', async () => {
    const { freshRequestId } = await freshModule();
    const ids = Array.from({ length: 3000 }, () => freshRequestId()); // past a batch of 256, several times
    for (const id of ids) expect(id).toMatch(UUID_V8);
    expect(new Set(ids).size).toBe(ids.length);
    // Nothing in common between consecutive ids: no shared prefix, no last group counting up.
    expect(new Set(ids.map((id) => id.slice(0, 8))).size).toBeGreaterThan(2990);
    const lastGroups = ids.map((id) => parseInt(id.slice(24), 16));
    expect(lastGroups.filter((n, i) => i > 0 && n === lastGroups[i - 1]! + 1).length).toBeLessThan(3);
    // Every hex digit position but the version's varies (the variant's takes its four values).
    const hex = ids.map((id) => id.replaceAll('-', ''));
    const varying = Array.from({ length: 32 }, (_, i) => new Set(hex.map((h) => h[i])).size);
    expect(varying.map((n, i) => (i === 12 ? n === 1 : i === 16 ? n === 4 : n === 16))).toEqual(Array(32).fill(true));
  });

  it('differ from one load of the module to the next, as in a new process (a key of its own)', async () => {
    const firsts = new Set<string>();
    for (let i = 0; i < 5; i++) firsts.add((await freshModule()).freshRequestId());
    expect(firsts.size).toBe(5);
  });
});
