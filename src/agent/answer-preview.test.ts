import { describe, expect, it } from 'vitest';
import { MAX_LIVE_TEXT_CHARS } from '../contracts/agent-turn.js';
import { AnswerPreview, RELEASE_INTERVAL_MS } from './answer-preview.js';

/** A clock that has moved past the release interval at every reading: every piece may be released. */
function slowClock(): () => number {
  let now = 0;
  return () => (now += RELEASE_INTERVAL_MS);
}

function previewOf(pieces: string[], whole = pieces.join('')): string[] {
  const shown: string[] = [];
  const preview = new AnswerPreview((text) => shown.push(text), slowClock());
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

  it('shows a step up to the live bound and nothing past it, also not at its end', () => {
    const word = 'word '.repeat(1024);
    const pieces = Array.from({ length: Math.ceil(MAX_LIVE_TEXT_CHARS / word.length) + 2 }, () => word);
    const shown = previewOf(pieces).join('');
    expect(shown.length).toBeGreaterThan(MAX_LIVE_TEXT_CHARS - 2 * word.length);
    expect(shown.length).toBeLessThanOrEqual(MAX_LIVE_TEXT_CHARS);
    expect(shown).toBe(word.repeat(shown.length / word.length));
  });

  it('shows nothing of a whole answer over the live bound that came unstreamed', () => {
    expect(previewOf([], `${'a'.repeat(MAX_LIVE_TEXT_CHARS)} b`)).toEqual([]);
  });

  it('finds the last whitespace of every kind \\s knows, ASCII or not', () => {
    for (const space of [' ', '\t', '\n', '\r', '\v', '\f', '\u00a0', '\u2003', '\u3000', '\ufeff']) {
      const shown: string[] = [];
      const preview = new AnswerPreview((text) => shown.push(text), slowClock());
      preview.push(`one${space}tw`);
      expect(shown).toEqual([`one${space}`]);
    }
  });

  it('holds the trailing word until whitespace or the end arrives', () => {
    const shown: string[] = [];
    const preview = new AnswerPreview((text) => shown.push(text), slowClock());
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

  it('releases at most once per interval: pieces arriving faster wait for the next release or the end', () => {
    const shown: string[] = [];
    let now = 0;
    const preview = new AnswerPreview((text) => shown.push(text), () => now);
    preview.push('one ');
    preview.push('two ');
    preview.push('three ');
    expect(shown).toEqual(['one ']);
    now += RELEASE_INTERVAL_MS;
    preview.push('four');
    expect(shown).toEqual(['one ', 'two three ']);
    preview.end('one two three four');
    expect(shown.join('')).toBe('one two three four');
  });

  it('releases the whole text at the end when the provider did not stream', () => {
    expect(previewOf([], 'all at once')).toEqual(['all at once']);
  });
});
