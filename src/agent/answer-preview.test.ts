import { describe, expect, it } from 'vitest';
import { AnswerPreview } from './answer-preview.js';

function previewOf(pieces: string[], whole = pieces.join('')): string[] {
  const shown: string[] = [];
  const preview = new AnswerPreview((text) => shown.push(text));
  for (const piece of pieces) preview.push(piece);
  preview.end(whole);
  return shown;
}

describe('AnswerPreview', () => {
  it('never releases any part of a secret split across pieces; the pieces add up to the censored text', () => {
    const key = 'sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ012345';
    const text = `use ${key} for it`;
    const pieces = text.match(/.{1,3}/gs)!;
    const shown = previewOf(pieces);
    expect(shown.join('')).toBe('use [REDACTED] for it');
    for (const piece of shown) expect(piece).not.toMatch(/sk-|ABC|XYZ/);
    expect(shown.length).toBeGreaterThan(2);
  });

  it('holds the trailing word until whitespace or the end arrives', () => {
    const shown: string[] = [];
    const preview = new AnswerPreview((text) => shown.push(text));
    preview.push('Hello wor');
    expect(shown).toEqual(['Hello ']);
    preview.push('ld');
    expect(shown).toEqual(['Hello ']);
    preview.end('Hello world');
    expect(shown).toEqual(['Hello ', 'world']);
  });

  it('censors a credential after its keyword once its value arrives, and replaces NUL as the stored answer does', () => {
    expect(previewOf(['password', ' = hunt', 'er2 ', 'ok\u0000']).join('')).toBe('password = [REDACTED] ok\uFFFD');
  });

  it('releases the whole text at the end when the provider did not stream', () => {
    expect(previewOf([], 'all at once')).toEqual(['all at once']);
  });
});
