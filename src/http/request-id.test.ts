import { describe, expect, it, vi } from 'vitest';

const UUID_V8 = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function freshModule() {
  vi.resetModules();
  return import('./request-id.js');
}

describe('generated request ids', () => {
  it('are version 8 UUIDs sharing a random prefix, their last group counting up', async () => {
    const { freshRequestId } = await freshModule();
    const ids = Array.from({ length: 300 }, () => freshRequestId());
    for (const id of ids) expect(id).toMatch(UUID_V8);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids.map((id) => id.slice(0, 23))).size).toBe(1);
    expect(ids.slice(0, 3).map((id) => id.slice(24))).toEqual(['000000000001', '000000000002', '000000000003']);
    expect(ids[299]!.slice(24)).toBe('00000000012c');
  });

  it('start from another random prefix each time the module is loaded, as in a new process', async () => {
    const prefixes = new Set<string>();
    for (let i = 0; i < 5; i++) prefixes.add((await freshModule()).freshRequestId().slice(0, 23));
    expect(prefixes.size).toBe(5);
  });
});
