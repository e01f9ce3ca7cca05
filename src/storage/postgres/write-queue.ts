import { StorageUnavailableError } from '../ports/errors.js';

/** Writes one store may have waiting or in flight before new ones are refused: the database is not keeping up. */
export const MAX_QUEUED_WRITES = 10_000;

/**
 * A store's writes, one at a time in call order per key (a run, a session, a setting). Pool
 * connections run statements in parallel, so two writes issued back to back could commit the
 * other way round; the stores promise call order where it is observable (runs created in one
 * batch list in creation order, a run's events in the order appended). Writes under different
 * keys run side by side, so one run's writes never wait behind another's. Bounded: past
 * `MAX_QUEUED_WRITES` waiting or in flight, a write is refused as the database being unavailable
 * rather than held in memory without end; a key is forgotten once its last write settles, so the
 * map holds no more keys than there are such writes.
 */
export class WriteQueue {
  private readonly tails = new Map<string, Promise<void>>();
  private pending = 0;

  run<T>(key: string, write: () => Promise<T>): Promise<T> {
    if (this.pending >= MAX_QUEUED_WRITES) return Promise.reject(new StorageUnavailableError());
    this.pending++;
    const result = (this.tails.get(key) ?? Promise.resolve()).then(write);
    const tail = result.then(settled, settled).then(() => {
      this.pending--;
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    this.tails.set(key, tail);
    return result;
  }

  /** Resolves once every write queued so far has settled. */
  async drain(): Promise<void> {
    while (this.tails.size > 0) await Promise.all(this.tails.values());
  }
}

const settled = (): void => undefined;
