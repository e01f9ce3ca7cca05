import { describe, expect, it } from 'vitest';
import { DISCORD_MESSAGE_LIMIT, splitReply } from './reply-split.js';

/** Each part's code fences are balanced: it renders on its own. */
function fencesBalanced(part: string): boolean {
  return part.split('\n').filter((line) => /^\s*```/.test(line)).length % 2 === 0;
}

describe('splitReply', () => {
  it('keeps a short answer whole', () => {
    expect(splitReply('hello')).toEqual(['hello']);
  });

  it('cuts at line ends, every part within the limit, nothing lost', () => {
    const lines = Array.from({ length: 300 }, (_, i) => `line ${i} ${'x'.repeat(i % 40)}`);
    const text = lines.join('\n');
    const parts = splitReply(text);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(DISCORD_MESSAGE_LIMIT);
    // Cut only between lines: every part is whole lines of the text.
    expect(parts.join('\n')).toBe(text);
  });

  it('keeps blank lines', () => {
    const text = `${'a'.repeat(15)}\n\n${'b'.repeat(15)}\n\n\n${'c'.repeat(15)}`;
    expect(splitReply(text, 20).join('\n')).toBe(text);
  });

  it('closes a code block at a cut and opens it again, with its language, in the next part', () => {
    const code = Array.from({ length: 200 }, (_, i) => `const value${i} = ${i} * 2; // ${'.'.repeat(i % 30)}`).join('\n');
    const text = `Here it is:\n\`\`\`ts\n${code}\n\`\`\`\nDone.`;
    const parts = splitReply(text);
    expect(parts.length).toBeGreaterThan(2);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(DISCORD_MESSAGE_LIMIT);
      expect(fencesBalanced(part)).toBe(true);
    }
    expect(parts[1]!.startsWith('```ts\n')).toBe(true);
    expect(parts[0]!.endsWith('\n```')).toBe(true);
    // Taking the added fences away gives the text back.
    const rejoined = parts.map((p, i) => {
      let s = p;
      if (i > 0 && s.startsWith('```ts\n') && !parts[i - 1]!.endsWith('Done.')) s = s.slice('```ts\n'.length);
      if (i < parts.length - 1 && s.endsWith('\n```')) s = s.slice(0, -'\n```'.length);
      return s;
    });
    expect(rejoined.join('\n')).toBe(text);
  });

  it('cuts a line longer than the limit at a space, or anywhere when it has none, never inside a surrogate pair', () => {
    const words = Array.from({ length: 800 }, (_, i) => `word${i}`).join(' ');
    const parts = splitReply(words);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(DISCORD_MESSAGE_LIMIT);
    expect(parts.join('')).toBe(words);
    expect(parts[0]!.endsWith(' ')).toBe(true);

    const emoji = '😀'.repeat(1500);
    const cut = splitReply(emoji);
    for (const part of cut) {
      expect(part.length).toBeLessThanOrEqual(DISCORD_MESSAGE_LIMIT);
      expect(/^(?:\uD83D\uDE00)+$/.test(part)).toBe(true);
    }
    expect(cut.join('')).toBe(emoji);
  });

  it('cuts a long line inside a code block and keeps the block open across parts', () => {
    const text = `\`\`\`\n${'y'.repeat(5000)}\n\`\`\``;
    const parts = splitReply(text);
    expect(parts.length).toBe(3);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(DISCORD_MESSAGE_LIMIT);
      expect(fencesBalanced(part)).toBe(true);
    }
    expect(parts.map((p) => p.replace(/```\n?/g, '').replace(/\n$/, '')).join('')).toBe('y'.repeat(5000));
  });
});
