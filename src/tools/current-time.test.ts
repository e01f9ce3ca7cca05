import { describe, expect, it } from 'vitest';
import { createCurrentTimeTool, isValidTimeZone } from './current-time.js';

const fixed = new Date('2025-01-15T12:00:00.000Z');
const tool = createCurrentTimeTool({ now: () => fixed });
const context = { sessionId: 's1', signal: new AbortController().signal };

describe('current_time', () => {
  it('gives UTC by default', async () => {
    const out = await tool.run({}, context);
    expect(out).toContain('utc: 2025-01-15T12:00:00.000Z');
    expect(out).toContain('time_zone: UTC');
    expect(out).toMatch(/local_time: Wednesday, January 15, 2025 at 12:00:00 PM/);
  });

  it('gives the wall-clock time in an IANA zone', async () => {
    const tokyo = await tool.run({ timezone: 'Asia/Tokyo' }, context);
    expect(tokyo).toContain('time_zone: Asia/Tokyo');
    expect(tokyo).toMatch(/local_time: Wednesday, January 15, 2025 at 9:00:00 PM/);
    expect(tokyo).toContain('utc_offset: GMT+09:00');
    const kolkata = await tool.run({ timezone: 'Asia/Kolkata' }, context);
    expect(kolkata).toMatch(/5:30:00 PM/);
    expect(kolkata).toContain('utc_offset: GMT+05:30');
  });

  it('refuses an unknown zone with a hint', async () => {
    await expect(tool.run({ timezone: 'Mars/Olympus_Mons' }, context)).rejects.toThrow(/unknown time zone 'Mars\/Olympus_Mons'.*IANA/);
    expect(isValidTimeZone('Europe/Paris')).toBe(true);
    expect(isValidTimeZone('Not/AZone')).toBe(false);
    expect(isValidTimeZone('')).toBe(false);
  });
});
