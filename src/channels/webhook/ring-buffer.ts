/**
 * Fixed-capacity first-in-first-out queue on a circular array. Push and shift are O(1) (an array
 * `shift()` moves every element), and memory is allocated once, so a full queue cannot grow.
 */
export class RingBuffer<T> {
  private readonly slots: (T | undefined)[];
  private head = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('capacity must be a positive integer');
    this.slots = new Array<T | undefined>(capacity).fill(undefined);
  }

  get size(): number {
    return this.count;
  }

  get isFull(): boolean {
    return this.count === this.capacity;
  }

  /** Append at the tail; `false` (and nothing stored) when full. */
  push(item: T): boolean {
    if (this.count === this.capacity) return false;
    this.slots[(this.head + this.count) % this.capacity] = item;
    this.count++;
    return true;
  }

  /** Remove and return the oldest item, or `undefined` when empty. */
  shift(): T | undefined {
    if (this.count === 0) return undefined;
    const item = this.slots[this.head];
    // Drop the reference so a consumed message can be collected while its slot waits for reuse.
    this.slots[this.head] = undefined;
    this.head = (this.head + 1) % this.capacity;
    this.count--;
    return item;
  }
}
