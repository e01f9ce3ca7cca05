/**
 * Bytes a viewer's socket is given in one write: a slice of the shared frame (`subarray`, no copy).
 * A 16 MiB frame written whole would have the kernel copy as much of it as each socket's send
 * buffer takes (some MiB) in one go, for every viewer the event loop finds writable in one pass;
 * a slice bounds that to 256 KiB a viewer (smaller slices cost more writes and waits for the socket
 * than they save: 64 KiB took 2.5 times the CPU to hand a 16 MiB answer to 100 viewers).
 */
export const WRITE_SLICE_BYTES = 256 * 1024;
/**
 * Bytes all viewers are written in one turn of the event loop; the rest waits for the next turn,
 * so other requests are served between turns however many viewers a large event goes to.
 */
export const TURN_BYTES = 1024 * 1024;

/** Someone with bytes to write, one slice at a time. */
export interface PacedWriter {
  /**
   * Writes at most one slice; answers the bytes written and whether it can write more at once
   * (false once it has nothing left or waits for its socket to drain; it asks again then).
   */
  writeSlice(): { bytes: number; more: boolean };
}

/**
 * Shares the socket writes of every SSE viewer out, slice by slice, round robin: a writer asks for
 * its turn (`request`) and is served at once while this turn's budget lasts, else in the next turn.
 */
export class WritePacer {
  /** Writers waiting for a slice, in the order they are served (a Set keeps insertion order). */
  private readonly ready = new Set<PacedWriter>();
  private spent = 0;
  private turnScheduled = false;
  private writing = false;

  constructor(private readonly turnBytes = TURN_BYTES) {}

  request(writer: PacedWriter): void {
    this.ready.add(writer);
    this.serve();
  }

  /** A writer that closed: it is not served any more. */
  forget(writer: PacedWriter): void {
    this.ready.delete(writer);
  }

  private serve(): void {
    // A write can make a writer ask again (a drain right away): it is queued, and served by the loop below.
    if (this.writing) return;
    this.writing = true;
    try {
      while (this.spent < this.turnBytes) {
        const writer = this.ready.values().next().value as PacedWriter | undefined;
        if (!writer) return;
        this.ready.delete(writer);
        const { bytes, more } = writer.writeSlice();
        this.spend(bytes);
        // To the back of the line: every viewer gets a slice before any gets a second.
        if (more) this.ready.add(writer);
      }
    } finally {
      this.writing = false;
    }
  }

  private spend(bytes: number): void {
    this.spent += bytes;
    if (this.turnScheduled) return;
    this.turnScheduled = true;
    setImmediate(() => {
      this.turnScheduled = false;
      this.spent = 0;
      this.serve();
    });
  }
}

/** The one pacer of the process: viewers of every run share the event loop. */
export const sharedWritePacer = new WritePacer();
