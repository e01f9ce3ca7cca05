import { describe, expect, it } from 'vitest';
import { AuditSampler } from './sampler.js';

describe('AuditSampler', () => {
  it('writes a few events per key and window and reports how many it skipped', () => {
    let now = 0;
    const sampler = new AuditSampler(2, 60_000, 100, () => now);
    expect(sampler.take('ip')).toEqual({ suppressed: 0 });
    expect(sampler.take('ip')).toEqual({ suppressed: 0 });
    expect(sampler.take('ip')).toBeNull();
    expect(sampler.take('ip')).toBeNull();
    expect(sampler.take('other')).toEqual({ suppressed: 0 });
    now = 60_000;
    expect(sampler.take('ip')).toEqual({ suppressed: 2 });
  });
});
