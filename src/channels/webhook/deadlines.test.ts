import { describe, expect, it } from 'vitest';
import { Deadlines } from './deadlines.js';

describe('Deadlines', () => {
  it('expires entries whose timeout has passed, oldest first, and only those', () => {
    let clock = 0;
    const deadlines = new Deadlines(100, () => clock);
    const fired: string[] = [];
    deadlines.add(() => fired.push('a'));
    clock = 50;
    deadlines.add(() => fired.push('b'));
    clock = 99;
    deadlines.sweep();
    expect(fired).toEqual([]);
    clock = 100;
    deadlines.sweep();
    expect(fired).toEqual(['a']);
    clock = 200;
    deadlines.sweep();
    expect(fired).toEqual(['a', 'b']);
    expect(deadlines.size).toBe(0);
  });

  it('never fires a deleted entry', () => {
    let clock = 0;
    const deadlines = new Deadlines(10, () => clock);
    let fired = false;
    const entry = deadlines.add(() => {
      fired = true;
    });
    deadlines.delete(entry);
    clock = 1000;
    deadlines.sweep();
    expect(fired).toBe(false);
  });

  it('deletes from the middle, the front and the back, and a second delete of one entry changes nothing', () => {
    let clock = 0;
    const deadlines = new Deadlines(10, () => clock);
    const fired: string[] = [];
    const [a, b, c] = ['a', 'b', 'c'].map((name) => deadlines.add(() => fired.push(name)));
    deadlines.delete(b!);
    deadlines.delete(b!);
    expect(deadlines.size).toBe(2);
    deadlines.delete(c!);
    deadlines.delete(a!);
    expect(deadlines.size).toBe(0);
    // The emptied list takes new entries in order again.
    deadlines.add(() => fired.push('d'));
    deadlines.add(() => fired.push('e'));
    clock = 100;
    deadlines.sweep();
    expect(fired).toEqual(['d', 'e']);
    expect(deadlines.size).toBe(0);
  });

  it('lets an expiring entry delete itself or others during a sweep', () => {
    let clock = 0;
    const deadlines = new Deadlines(10, () => clock);
    const fired: number[] = [];
    const second = deadlines.add(() => fired.push(2));
    deadlines.add(() => fired.push(3));
    clock = 100;
    const first = deadlines.add(() => fired.push(1));
    deadlines.delete(second);
    deadlines.sweep();
    expect(fired).toEqual([3]);
    expect(deadlines.size).toBe(1);
    deadlines.delete(first);
    expect(deadlines.size).toBe(0);
  });

  it('sweeps at a quarter of the timeout, between 10 ms and 1 s', () => {
    expect(new Deadlines(10_000).intervalMs).toBe(1000);
    expect(new Deadlines(300).intervalMs).toBe(75);
    expect(new Deadlines(5).intervalMs).toBe(10);
  });

  it('fires from its own interval once started', async () => {
    const deadlines = new Deadlines(20);
    deadlines.start();
    try {
      const fired = await new Promise<boolean>((resolve) => {
        deadlines.add(() => resolve(true));
      });
      expect(fired).toBe(true);
    } finally {
      deadlines.stop();
    }
  });

  it('has no timer while no entry waits, and sweeps again once one is added', async () => {
    const deadlines = new Deadlines(20);
    const timer = () => (deadlines as unknown as { timer: NodeJS.Timeout | null }).timer;
    deadlines.start();
    try {
      expect(timer()).toBeNull();
      const entry = deadlines.add(() => {});
      expect(timer()).not.toBeNull();
      deadlines.delete(entry);
      // The next sweep finds nothing and ends the interval.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(timer()).toBeNull();
      const fired = await new Promise<boolean>((resolve) => {
        deadlines.add(() => resolve(true));
      });
      expect(fired).toBe(true);
    } finally {
      deadlines.stop();
    }
  });
});
