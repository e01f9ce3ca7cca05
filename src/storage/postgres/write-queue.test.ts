import { describe, expect, it } from 'vitest';
import { StorageUnavailableError } from '../ports/errors.js';
import { MAX_QUEUED_WRITES, WriteQueue } from './write-queue.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('WriteQueue', () => {
  it('runs the writes of one key one at a time in call order, a failed one not stopping the next', async () => {
    const queue = new WriteQueue();
    const log: string[] = [];
    const write = (name: string, ms: number, fail = false) => queue.run('run-1', async () => {
      log.push(`start ${name}`);
      await sleep(ms);
      log.push(`end ${name}`);
      if (fail) throw new Error(name);
      return name;
    });
    const results = await Promise.allSettled([write('a', 20), write('b', 1, true), write('c', 1)]);
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });

  it('runs the writes of different keys side by side, and forgets a key once its writes have settled', async () => {
    const queue = new WriteQueue();
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => (release = resolve));
    const slow = queue.run('run-1', () => blocked.then(() => 'slow'));
    // Finishes while run-1's write is still waiting: it is not queued behind it.
    expect(await queue.run('run-2', async () => 'fast')).toBe('fast');
    release();
    expect(await slow).toBe('slow');
    await queue.drain();
    expect((queue as unknown as { tails: Map<string, unknown> }).tails.size).toBe(0);
  });

  it('refuses a write past the bound as the database being unavailable, and takes writes again once it drains', async () => {
    const queue = new WriteQueue();
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => (release = resolve));
    const held = Array.from({ length: MAX_QUEUED_WRITES }, (_, i) => queue.run(`run-${i % 3}`, () => blocked));
    await expect(queue.run('another', async () => 'one too many')).rejects.toBeInstanceOf(StorageUnavailableError);
    release();
    await Promise.all(held);
    await queue.drain();
    expect(await queue.run('another', async () => 'after')).toBe('after');
  });
});
