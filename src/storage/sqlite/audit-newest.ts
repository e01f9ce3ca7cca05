/** A row's place in the audit API's order. */
export interface Ordered {
  seq: number;
  timestamp: string;
}

/** a before b in the API's order (newest first, then chain order)? */
const newer = (a: Ordered, b: Ordered) => a.timestamp > b.timestamp || (a.timestamp === b.timestamp && a.seq > b.seq);

/** The newest `size` rows of those offered in any order: a heap whose root is the oldest kept. */
export class Newest {
  private readonly heap: Ordered[] = [];

  constructor(private readonly size: number) {}

  offer(row: Ordered): void {
    const { heap } = this;
    if (heap.length < this.size) {
      heap.push({ seq: row.seq, timestamp: row.timestamp });
      for (let i = heap.length - 1; i > 0;) {
        const parent = (i - 1) >> 1;
        if (!newer(heap[parent]!, heap[i]!)) break;
        [heap[parent], heap[i]] = [heap[i]!, heap[parent]!];
        i = parent;
      }
      return;
    }
    if (!newer(row, heap[0]!)) return;
    heap[0] = { seq: row.seq, timestamp: row.timestamp };
    for (let i = 0; ;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let oldest = i;
      if (left < heap.length && newer(heap[oldest]!, heap[left]!)) oldest = left;
      if (right < heap.length && newer(heap[oldest]!, heap[right]!)) oldest = right;
      if (oldest === i) break;
      [heap[oldest], heap[i]] = [heap[i]!, heap[oldest]!];
      i = oldest;
    }
  }

  /** The kept rows' `seq`s, newest first. */
  take(): number[] {
    return [...this.heap].sort((a, b) => (newer(a, b) ? -1 : 1)).map((row) => row.seq);
  }
}
