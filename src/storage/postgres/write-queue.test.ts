import { describe, expect, it } from 'vitest';
import { StorageUnavailableError } from '../errors.js';
import { MAX_QUEUED_WRITES, WriteQueue } from './write-queue.js';

describe('WriteQueue', () => {
  it('runs writes one at a time in call order, a failed one not stopping the next', async () => {
    const queue = new WriteQueue();
    const log: string[] = [];
    const write = (name: string, ms: number, fail = false) => queue.run(async () => {
      log.push(`start ${name}`);
      await new Promise((resolve) => setTimeout(resolve, ms));
      log.push(`end ${name}`);
      if (fail) throw new Error(name);
      return name;
    });
    const results = await Promise.allSettled([write('a', 20), write('b', 1, true), write('c', 1)]);
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });

  it('refuses a write past the bound as the database being unavailable, and takes writes again once it drains', async () => {
    const queue = new WriteQueue();
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => (release = resolve));
    const held = Array.from({ length: MAX_QUEUED_WRITES }, () => queue.run(() => blocked));
    await expect(queue.run(async () => 'one too many')).rejects.toBeInstanceOf(StorageUnavailableError);
    release();
    await Promise.all(held);
    await queue.drain();
    expect(await queue.run(async () => 'after')).toBe('after');
  });
});
