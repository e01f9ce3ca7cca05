import { describe, expect, it } from 'vitest';
import { RunAgain } from './run-again.js';

/** A task whose runs end only when the test says so. */
function gatedTask(result: () => boolean | void = () => undefined) {
  const ends: (() => void)[] = [];
  let active = 0;
  let overlapped = false;
  const task = async () => {
    active++;
    if (active > 1) overlapped = true;
    await new Promise<void>((resolve) => ends.push(resolve));
    active--;
    return result();
  };
  return { task, ends, runs: () => ends.length, overlapped: () => overlapped };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('RunAgain', () => {
  it('runs once more after the current run when asked meanwhile, however often, and never two at once', async () => {
    const gated = gatedTask();
    const loop = new RunAgain(gated.task);
    const first = loop.run();
    expect(loop.run()).toBe(first);
    loop.run();
    loop.run();
    await tick();
    expect(gated.runs()).toBe(1);
    gated.ends[0]!();
    await tick();
    expect(gated.runs()).toBe(2);
    gated.ends[1]!();
    await first;
    expect(gated.runs()).toBe(2);
    expect(gated.overlapped()).toBe(false);
    expect(loop.current).toBeNull();
  });

  it('runs once when not asked again, and anew when asked after the loop ended', async () => {
    let runs = 0;
    const loop = new RunAgain(async () => {
      runs++;
    });
    await loop.run();
    expect(runs).toBe(1);
    await loop.run();
    expect(runs).toBe(2);
  });

  it('runs again when the task itself asks (after its first await)', async () => {
    let runs = 0;
    const loop: RunAgain = new RunAgain(async () => {
      await tick();
      if (++runs < 3) void loop.run();
    });
    await loop.run();
    expect(runs).toBe(3);
  });

  it('ends the loop when the task resolves to false, even if asked meanwhile', async () => {
    const gated = gatedTask(() => false);
    const loop = new RunAgain(gated.task);
    const done = loop.run();
    loop.run();
    await tick();
    gated.ends[0]!();
    await done;
    expect(gated.runs()).toBe(1);
    expect(loop.current).toBeNull();
  });

  it('ends the loop, rejecting, when the task throws, and runs again when asked later', async () => {
    let fail = true;
    const loop = new RunAgain(async () => {
      if (fail) throw new Error('boom');
    });
    await expect(loop.run()).rejects.toThrow('boom');
    fail = false;
    await expect(loop.run()).resolves.toBeUndefined();
  });
});
