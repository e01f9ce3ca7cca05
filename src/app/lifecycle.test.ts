import { describe, expect, it } from 'vitest';
import { Lifecycle, type LifecyclePart, type LifecyclePhase } from './lifecycle.js';

/** Parts that record what happens to them, in order, into one journal. */
function parts(journal: string[], specs: { name: string; phase?: LifecyclePhase; startFails?: boolean; stopFails?: boolean; startless?: boolean }[]): LifecyclePart[] {
  return specs.map((spec) => ({
    name: spec.name,
    phase: spec.phase,
    ...(spec.startless ? {} : {
      start: async () => {
        journal.push(`start ${spec.name}`);
        if (spec.startFails) throw new Error(`${spec.name} would not start`);
      },
    }),
    stop: async () => {
      journal.push(`stop ${spec.name}`);
      if (spec.stopFails) throw new Error(`${spec.name} would not stop`);
    },
  }));
}

describe('Lifecycle', () => {
  it('starts in list order and stops in the reverse order', async () => {
    const journal: string[] = [];
    const lifecycle = new Lifecycle(parts(journal, [{ name: 'a' }, { name: 'b', startless: true }, { name: 'c' }]));
    await lifecycle.start('create');
    await lifecycle.stop();
    expect(journal).toEqual(['start a', 'start c', 'stop c', 'stop b', 'stop a']);
  });

  it('starts each phase apart, and stops only the parts that started', async () => {
    const journal: string[] = [];
    const lifecycle = new Lifecycle(parts(journal, [{ name: 'db' }, { name: 'listener', phase: 'listen' }, { name: 'runs' }]));
    await lifecycle.start('create');
    expect(journal).toEqual(['start db', 'start runs']);
    await lifecycle.stop();
    expect(journal.slice(2)).toEqual(['stop runs', 'stop db']);

    const served: string[] = [];
    const serving = new Lifecycle(parts(served, [{ name: 'db' }, { name: 'listener', phase: 'listen' }, { name: 'runs' }]));
    await serving.start('create');
    await serving.start('listen');
    await serving.stop();
    expect(served).toEqual(['start db', 'start runs', 'start listener', 'stop runs', 'stop listener', 'stop db']);
  });

  it('stops the parts already started, and the failing one, when a start fails; the start error is thrown', async () => {
    const journal: string[] = [];
    const lifecycle = new Lifecycle(parts(journal, [{ name: 'a' }, { name: 'b', startless: true }, { name: 'c', startFails: true }, { name: 'd' }]));
    await expect(lifecycle.start('create')).rejects.toThrow('c would not start');
    expect(journal).toEqual(['start a', 'start c', 'stop c', 'stop b', 'stop a']);
    // Closing afterwards stops nothing twice.
    await lifecycle.stop();
    expect(journal).toHaveLength(5);
  });

  it('surfaces the start error even when stopping fails too', async () => {
    const journal: string[] = [];
    const lifecycle = new Lifecycle(parts(journal, [{ name: 'a', stopFails: true }, { name: 'b', startFails: true }]));
    await expect(lifecycle.start('create')).rejects.toThrow('b would not start');
    expect(journal).toEqual(['start a', 'start b', 'stop b', 'stop a']);
  });

  it('stops every part when one fails to stop, then throws the first failure', async () => {
    const journal: string[] = [];
    const lifecycle = new Lifecycle(parts(journal, [{ name: 'a' }, { name: 'b', stopFails: true }, { name: 'c', stopFails: true }]));
    await lifecycle.start('create');
    await expect(lifecycle.stop()).rejects.toThrow('c would not stop');
    expect(journal.slice(3)).toEqual(['stop c', 'stop b', 'stop a']);
  });

  it('stops once when asked twice, and starts nothing once stopping', async () => {
    const journal: string[] = [];
    const lifecycle = new Lifecycle(parts(journal, [{ name: 'a' }, { name: 'b', phase: 'listen' }]));
    await lifecycle.start('create');
    await Promise.all([lifecycle.stop(), lifecycle.stop()]);
    await lifecycle.start('listen');
    expect(journal).toEqual(['start a', 'stop a']);
  });
});
