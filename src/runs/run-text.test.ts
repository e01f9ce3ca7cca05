import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { DELTA_INTERVAL_MS, MAX_RUN_TEXT_CHARS, RunText } from './run-text.js';

describe('RunText', () => {
  it('hands on the first piece at once and coalesces the next ones into one per interval', async () => {
    const published: [string, number][] = [];
    const text = new RunText((piece, offset) => published.push([piece, offset]));
    text.add('a');
    expect(published).toEqual([['a', 0]]);
    for (const piece of ['b', 'c', 'd']) text.add(piece);
    expect(published).toHaveLength(1);
    await sleep(DELTA_INTERVAL_MS + 20);
    expect(published).toEqual([['a', 0], ['bcd', 1]]);
    expect(text.soFar).toBe('abcd');
  });

  it('flush hands on what waits now; after close nothing more is taken', () => {
    const published: string[] = [];
    const text = new RunText((piece) => published.push(piece));
    text.add('one ');
    text.add('two ');
    text.flush();
    expect(published).toEqual(['one ', 'two ']);
    text.add('three');
    text.close();
    text.add('four');
    expect(published).toEqual(['one ', 'two ', 'three']);
    expect(text.soFar).toBe('one two three');
  });

  it('stops at its bound: the rest of a longer answer comes with the terminal event only', () => {
    const published: string[] = [];
    const text = new RunText((piece) => published.push(piece));
    text.add('x'.repeat(MAX_RUN_TEXT_CHARS - 1));
    text.add('yy');
    text.add('z');
    text.close();
    expect(text.soFar.length).toBe(MAX_RUN_TEXT_CHARS - 1);
    expect(published.join('')).not.toContain('y');
  });
});
