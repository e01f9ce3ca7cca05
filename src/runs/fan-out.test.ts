import { describe, expect, it } from 'vitest';
import { turnCounter } from '../../test/helpers/turns.js';
import { FanOut, liveEvent, SLICE_BYTES, SLICE_VIEWERS, type RunViewer } from './fan-out.js';
import type { RunEvent } from '../storage/ports/runs.js';

/** A viewer that records what it was handed and in which turn. */
class Recorder implements RunViewer {
  readonly got: { id: number | 'end'; turn: number }[] = [];
  constructor(private readonly turn: () => number, private readonly onSend?: (event: RunEvent) => void) {}
  send(event: RunEvent): void {
    this.got.push({ id: event.id, turn: this.turn() });
    this.onSend?.(event);
  }
  end(): void {
    this.got.push({ id: 'end', turn: this.turn() });
  }
}

const event = (id: number, size = 100): RunEvent => ({ id, name: 'tool.result', data: 'x'.repeat(size) });

/** How many viewers were handed event `id` in each turn that handed it to any. */
function perTurn(viewers: Recorder[], id: number | 'end'): number[] {
  const counts = new Map<number, number>();
  for (const viewer of viewers) {
    for (const got of viewer.got) if (got.id === id) counts.set(got.turn, (counts.get(got.turn) ?? 0) + 1);
  }
  return [...counts.values()];
}

function fanOutWith(count: number, turn: () => number): { fanOut: FanOut; viewers: Recorder[]; errors: unknown[] } {
  const errors: unknown[] = [];
  const fanOut = new FanOut((_viewer, err) => errors.push(err));
  const viewers = Array.from({ length: count }, () => new Recorder(turn));
  for (const viewer of viewers) fanOut.add(viewer);
  return { fanOut, viewers, errors };
}

describe('FanOut', () => {
  it('hands a 16 MiB event to 1,000 viewers one per turn, keeping each viewer\'s order and the end last', async () => {
    const turns = turnCounter();
    const { fanOut, viewers } = fanOutWith(1000, turns.now);
    fanOut.send(event(1, 16 * 1024 * 1024));
    fanOut.send(event(2));
    await fanOut.end();
    turns.stop();
    expect(16 * 1024 * 1024).toBeGreaterThan(SLICE_BYTES);
    // One viewer per turn for the large event: a thousand turns, each a single socket write.
    expect(perTurn(viewers, 1)).toEqual(Array(1000).fill(1));
    // Small events and the end go out SLICE_VIEWERS at a time.
    for (const id of [2, 'end'] as const) {
      const counts = perTurn(viewers, id);
      expect(Math.max(...counts)).toBe(SLICE_VIEWERS);
      expect(counts.reduce((a, b) => a + b)).toBe(1000);
    }
    for (const viewer of viewers) {
      expect(viewer.got.map((g) => g.id)).toEqual([1, 2, 'end']);
      expect(viewer.got[0]!.turn).toBeLessThan(viewer.got[1]!.turn);
    }
  });

  it('splits a slice by bytes: a 1 MiB event goes to SLICE_BYTES / 1 MiB viewers per turn', async () => {
    const turns = turnCounter();
    const { fanOut, viewers } = fanOutWith(40, turns.now);
    fanOut.send(event(1, 1024 * 1024));
    await fanOut.end();
    turns.stop();
    expect(perTurn(viewers, 1)).toEqual(Array(40 / (SLICE_BYTES / (1024 * 1024))).fill(SLICE_BYTES / (1024 * 1024)));
  });

  it('counts every event handed over in one turn against that turn\'s budget', async () => {
    const turns = turnCounter();
    const { fanOut, viewers } = fanOutWith(100, turns.now);
    // Three events committed in the same turn: 300 hand-overs, SLICE_VIEWERS per turn in all.
    for (const id of [1, 2, 3]) fanOut.send(event(id));
    await fanOut.end();
    turns.stop();
    const handedPerTurn = new Map<number, number>();
    for (const viewer of viewers) {
      for (const got of viewer.got) if (got.id !== 'end') handedPerTurn.set(got.turn, (handedPerTurn.get(got.turn) ?? 0) + 1);
    }
    expect([...handedPerTurn.values()]).toEqual([SLICE_VIEWERS, SLICE_VIEWERS, 300 - 2 * SLICE_VIEWERS]);
  });

  it('skips a viewer that leaves during the fan-out, and gives one that joins only the later events', async () => {
    const turns = turnCounter();
    const fanOut = new FanOut(() => {});
    const leaving = new Recorder(turns.now);
    const joining = new Recorder(turns.now);
    // The first viewer is served in the first slice; the leaving one, after 2 × SLICE_VIEWERS
    // others, in the third.
    const first = new Recorder(turns.now, (e) => {
      if (e.id !== 1) return;
      fanOut.remove(leaving);
      fanOut.add(joining);
    });
    const others = Array.from({ length: SLICE_VIEWERS * 2 }, () => new Recorder(turns.now));
    for (const viewer of [first, ...others, leaving]) fanOut.add(viewer);
    fanOut.send(event(1));
    // The first slice is handed over at once; the others wait for the next turns.
    expect(first.got.map((g) => g.id)).toEqual([1]);
    expect(others.at(-1)!.got).toEqual([]);
    fanOut.send(event(2));
    await fanOut.end();
    turns.stop();
    expect(leaving.got).toEqual([]);
    expect(joining.got.map((g) => g.id)).toEqual([2, 'end']);
    for (const viewer of [first, ...others]) expect(viewer.got.map((g) => g.id)).toEqual([1, 2, 'end']);
  });

  it('drops a viewer whose send throws and goes on with the others', async () => {
    const { fanOut, viewers, errors } = fanOutWith(3, () => 0);
    const broken: RunViewer = { send: () => { throw new Error('socket gone'); }, end: () => { throw new Error('never called'); } };
    fanOut.add(broken);
    fanOut.send(event(1));
    await fanOut.end();
    expect(errors.map((e) => (e as Error).message)).toEqual(['socket gone']);
    for (const viewer of viewers) expect(viewer.got.map((g) => g.id)).toEqual([1, 'end']);
  });

  it('ignores events after the end and refuses new viewers', async () => {
    const { fanOut, viewers } = fanOutWith(1, () => 0);
    const ended = fanOut.end();
    fanOut.send(event(1));
    expect(fanOut.ended).toBe(true);
    expect(() => fanOut.add(new Recorder(() => 0))).toThrow(/ended/);
    await ended;
    expect(viewers[0]!.got.map((g) => g.id)).toEqual(['end']);
    expect(fanOut.size).toBe(0);
  });
});

describe('FanOut live events', () => {
  it('hands run.delta only to viewers with sendLive, in order with the run\'s events', () => {
    const fanOut = new FanOut(() => {});
    const live: string[] = [];
    const plain: string[] = [];
    fanOut.add({ send: (e) => live.push(String(e.id)), sendLive: (e) => live.push(e.data), end: () => live.push('end') });
    fanOut.add({ send: (e) => plain.push(String(e.id)), end: () => plain.push('end') });
    fanOut.send(event(1, 1));
    fanOut.sendLive(liveEvent('run.delta', 'hi'));
    fanOut.send(event(2, 1));
    void fanOut.end();
    expect(live).toEqual(['1', '{"text":"hi"}', '2', 'end']);
    expect(plain).toEqual(['1', '2', 'end']);
  });
});
