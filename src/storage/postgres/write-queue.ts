import { StorageUnavailableError } from '../errors.js';

/** Writes one store may have waiting before new ones are refused: the database is not keeping up. */
export const MAX_QUEUED_WRITES = 10_000;

/**
 * A store's writes, one at a time in call order. Pool connections run statements in parallel, so
 * two writes issued back to back could commit the other way round; the stores promise call order
 * (runs created in one batch list in creation order, a run's events in the order appended). Bounded:
 * past `MAX_QUEUED_WRITES` waiting, a write is refused as the database being unavailable rather
 * than held in memory without end.
 */
export class WriteQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private waiting = 0;

  run<T>(write: () => Promise<T>): Promise<T> {
    if (this.waiting >= MAX_QUEUED_WRITES) return Promise.reject(new StorageUnavailableError());
    this.waiting++;
    const done = () => {
      this.waiting--;
      return write();
    };
    const result = this.tail.then(done, done);
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** Resolves once every write queued so far has settled. */
  async drain(): Promise<void> {
    await this.tail;
  }
}
