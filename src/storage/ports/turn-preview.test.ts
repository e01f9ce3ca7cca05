import { describe, expect, it } from 'vitest';
import { excerpt, PREVIEW_MAX_CHARS } from './turn-preview.js';

const words = (n: number, prefix = 'w') => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(' ');

describe('excerpt', () => {
  it('centres on the first match, not the densest one, and marks both cuts', () => {
    const text = `${words(100)} first target here ${words(100, 'x')} target target target ${words(50, 'y')}`;
    const preview = excerpt(text, ['TARGET']);
    expect(preview.length).toBeLessThanOrEqual(PREVIEW_MAX_CHARS);
    expect(preview).toContain('first target here');
    expect(preview).toMatch(/^…w\d/);
    expect(preview.endsWith('…')).toBe(true);
  });

  it('starts at the beginning when the match is near it', () => {
    const preview = excerpt(`target ${words(200)}`, ['target']);
    expect(preview.startsWith('target w0')).toBe(true);
    expect(preview.endsWith('…')).toBe(true);
  });

  it('reaches the end when the match is near it', () => {
    const preview = excerpt(`${words(200)} final target`, ['target']);
    expect(preview.startsWith('…')).toBe(true);
    expect(preview.endsWith('final target')).toBe(true);
    expect(preview.length).toBeLessThanOrEqual(PREVIEW_MAX_CHARS);
  });

  it('matches folded words only as whole words', () => {
    const preview = excerpt(`${words(60)} cafeteria ${words(60, 'z')} Café ${words(60, 'q')}`, ['cafe']);
    expect(preview).toContain('Café');
    expect(preview).not.toContain('cafeteria');
  });

  it('never splits a surrogate pair and stays within the limit in code points too', () => {
    const emoji = '😀'.repeat(300);
    const preview = excerpt(`${emoji} needle ${emoji}`, ['needle']);
    expect(preview).toContain('needle');
    expect(preview.length).toBeLessThanOrEqual(PREVIEW_MAX_CHARS);
    expect(preview).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });

  it('cuts a single enormous word and falls back to the start when nothing matches', () => {
    const huge = `${'a'.repeat(50)} ${'needle'.repeat(100)} tail`;
    expect(excerpt(huge, ['needle'.repeat(100)]).length).toBeLessThanOrEqual(PREVIEW_MAX_CHARS);
    const none = excerpt(words(300), ['absent']);
    expect(none.startsWith('w0 w1')).toBe(true);
    expect(none.length).toBeLessThanOrEqual(PREVIEW_MAX_CHARS);
  });
});
