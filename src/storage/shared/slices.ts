import { performance } from 'node:perf_hooks';

/**
 * Deleting many rows happens in transactions of at most `maxBatch` rows, yielding to the event loop
 * between them. The row count alone would not bound the pause (a secure delete from a large full-text
 * index costs up to a millisecond per turn), so the batch size adapts after each transaction to take
 * about `sliceMs`; index merges make some commits take two to three times that, which still stays
 * well under the 50 ms we allow a request to wait.
 */
export const SLICE_MAX_BATCH = 1_000;
export const SLICE_MS = 10;
const FIRST_BATCH = 8;

export interface SliceOptions {
  maxBatch?: number;
  sliceMs?: number;
  signal?: AbortSignal;
  /** False once the database has closed (a slice must not start then). */
  isOpen(): boolean;
}

/**
 * Runs `slice(n)` — one transaction that removes up to n rows and says how many it removed — until
 * it removes fewer than asked; returns the total. The slice is synchronous on SQLite (the pause it
 * bounds is the event loop's) and a round trip on PostgreSQL (the pause is the rows' locks).
 */
export async function removeInSlices(slice: (limit: number) => number | Promise<number>, options: SliceOptions): Promise<number> {
  const maxBatch = options.maxBatch ?? SLICE_MAX_BATCH;
  const sliceMs = options.sliceMs ?? SLICE_MS;
  let removed = 0;
  let size = Math.min(FIRST_BATCH, maxBatch);
  for (;;) {
    if (options.signal?.aborted || !options.isOpen()) return removed;
    const started = performance.now();
    const rows = await slice(size);
    const elapsed = performance.now() - started;
    removed += rows;
    if (rows < size) return removed;
    const scaled = Math.floor(size * (sliceMs / Math.max(elapsed, 0.1)));
    size = Math.max(1, Math.min(maxBatch, scaled, size * 2));
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
