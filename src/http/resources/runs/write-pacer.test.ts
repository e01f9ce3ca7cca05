import { describe, expect, it } from 'vitest';
import { turnCounter } from '../../../../test/helpers/turns.js';
import { WritePacer, type PacedWriter } from './write-pacer.js';

/** A writer with `slices` slices of `size` bytes to write, recording the turn of each. */
class Slices implements PacedWriter {
  readonly turns: number[] = [];
  constructor(private slices: number, private readonly size: number, private readonly turn: () => number, private readonly log: string[], private readonly name: string) {}
  writeSlice(): { bytes: number; more: boolean } {
    this.slices--;
    this.turns.push(this.turn());
    this.log.push(this.name);
    return { bytes: this.size, more: this.slices > 0 };
  }
}

async function settled(writers: Slices[], total: number): Promise<void> {
  while (writers.reduce((n, w) => n + w.turns.length, 0) < total) await new Promise((resolve) => setImmediate(resolve));
}

describe('WritePacer', () => {
  it('serves writers round robin, at most the turn budget in one turn, the rest in later turns', async () => {
    const turns = turnCounter();
    const pacer = new WritePacer(100);
    const log: string[] = [];
    // The first writer spends this turn's budget: the others wait for the next turn, side by side.
    const filler = new Slices(1, 100, turns.now, log, 'filler');
    const writers = ['a', 'b', 'c'].map((name) => new Slices(4, 10, turns.now, log, name));
    for (const writer of [filler, ...writers]) pacer.request(writer);
    await settled([filler, ...writers], 13);
    turns.stop();
    // One slice each before anyone gets a second.
    expect(log).toEqual(['filler', 'a', 'b', 'c', 'a', 'b', 'c', 'a', 'b', 'c', 'a', 'b', 'c']);
    // 100 bytes a turn: the filler's, then ten slices of 10, then the last two.
    const perTurn = new Map<number, number>();
    for (const turn of [filler, ...writers].flatMap((w) => w.turns)) perTurn.set(turn, (perTurn.get(turn) ?? 0) + 1);
    expect([...perTurn.values()]).toEqual([1, 10, 2]);
  });

  it('writes at once while the budget lasts, and no more for a writer it was told to forget', async () => {
    const turns = turnCounter();
    const pacer = new WritePacer(100);
    const log: string[] = [];
    const first = new Slices(1, 10, turns.now, log, 'first');
    pacer.request(first);
    // Synchronous: a small event to a viewer that keeps up is not delayed.
    expect(log).toEqual(['first']);
    const big = new Slices(20, 60, turns.now, log, 'big');
    const gone = new Slices(20, 60, turns.now, log, 'gone');
    pacer.request(big);
    pacer.request(gone);
    pacer.forget(gone);
    await settled([big], 20);
    turns.stop();
    expect(log.filter((name) => name === 'gone')).toEqual([]);
  });
});
