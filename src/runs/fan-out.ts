import type { RunEvent } from '../storage/ports/runs.js';

/**
 * Someone watching a run's events (an SSE connection). `send` must never block or throw: a slow
 * viewer buffers (bounded) or disconnects itself, so it can never hold up the run or other viewers.
 */
export interface RunViewer {
  send(event: RunEvent): void;
  /** Present on a viewer that asked for the run's live text (`run.delta`, `run.text`); same rules as `send`. */
  readonly sendLive?: (event: LiveEvent) => void;
  /** The run has finished (its terminal event was the last `send`), or the service is closing. */
  end(): void;
}

/**
 * A live-only event of a run: not stored, no id, sent only to viewers that asked for it
 * (docs/api.md#run-event-stream). `run.delta` is new text of the answer being written; `run.text`
 * is the text so far, for a viewer that joins mid-answer. `data` is `{"text": "…"}`.
 */
export interface LiveEvent {
  name: 'run.delta' | 'run.text';
  data: string;
}

export function liveEvent(name: LiveEvent['name'], text: string): LiveEvent {
  return { name, data: JSON.stringify({ text }) };
}

/**
 * What watching a run gives: the committed events after the id asked for, and whether the run has
 * finished (else the viewer is attached for the rest, until `stop`). `text`: the run's live text so
 * far, for a viewer with `sendLive` ('' otherwise, or when none is known).
 */
export type WatchResult =
  | { found: false }
  | { found: true; replay: RunEvent[]; finished: boolean; text: string; stop(): void };

/**
 * At most this many viewers are handed an event in one turn of the event loop: each hand-over is a
 * socket write (a system call), and ten thousand of them in one turn would stall every other
 * request for as long.
 */
export const SLICE_VIEWERS = 128;
/**
 * … and at most this many bytes of events (counted as the viewers handed an event times its size;
 * one viewer per turn for an event larger than this). Handing over a shared buffer costs what the
 * kernel copies of it at once — up to a socket's send buffer, a few MiB — so a 16 MiB answer to a
 * thousand viewers takes a thousand short turns instead of one of several seconds.
 */
export const SLICE_BYTES = 4 * 1024 * 1024;

/** One event, live event or the end (`null`) for the viewers attached when it was sent. */
interface Delivery {
  event: RunEvent | LiveEvent | null;
  viewers: RunViewer[];
  /** Index of the next viewer to hand it to. */
  next: number;
}

/**
 * The viewers of one run and the delivery of its events to them, in slices with a yield to the
 * event loop between them. Every viewer gets the events in order and the end last, because an
 * event is handed to all of its viewers before the next one is started; a viewer removed meanwhile
 * (it disconnected) is skipped. An event goes to the viewers attached when `send` is called: one
 * attached later has been given the run's log up to that point (with this event) as its replay.
 */
export class FanOut {
  private readonly viewers = new Set<RunViewer>();
  /** The viewers with `sendLive`, a subset of `viewers`. */
  private readonly liveViewers = new Set<RunViewer>();
  private readonly queue: Delivery[] = [];
  /** What this turn of the event loop has handed over so far. */
  private spent = { viewers: 0, bytes: 0 };
  /** The next turn is scheduled: it resets `spent` and goes on with what waits in `queue`. */
  private turnScheduled = false;
  /** This turn's budget is spent: the queue waits for the next turn. */
  private waiting = false;
  private ending: Promise<void> | null = null;
  private delivered!: () => void;

  /** `onError` hears about a viewer whose `send` or `end` threw; that viewer is dropped. */
  constructor(private readonly onError: (viewer: RunViewer, error: unknown) => void) {}

  get size(): number {
    return this.viewers.size;
  }

  /** True once `end` was called: no viewer can be added any more. */
  get ended(): boolean {
    return this.ending !== null;
  }

  add(viewer: RunViewer): void {
    if (this.ending) throw new Error('the fan-out has ended');
    this.viewers.add(viewer);
    if (viewer.sendLive) this.liveViewers.add(viewer);
  }

  remove(viewer: RunViewer): void {
    this.viewers.delete(viewer);
    this.liveViewers.delete(viewer);
  }

  /** Hands `event` to every viewer attached now: at once as far as this turn's budget goes. */
  send(event: RunEvent): void {
    if (this.ending || this.viewers.size === 0) return;
    this.enqueue({ event, viewers: [...this.viewers], next: 0 });
  }

  /** Hands a live event to the viewers that asked for them, in order with the run's events. */
  sendLive(event: LiveEvent): void {
    if (this.ending || this.liveViewers.size === 0) return;
    this.enqueue({ event, viewers: [...this.liveViewers], next: 0 });
  }

  /** Queues the end for every viewer; resolves once every event before it and the end are handed over. */
  end(): Promise<void> {
    if (!this.ending) {
      this.ending = new Promise<void>((resolve) => (this.delivered = resolve));
      this.enqueue({ event: null, viewers: [...this.viewers], next: 0 });
    }
    return this.ending;
  }

  private enqueue(delivery: Delivery): void {
    this.queue.push(delivery);
    if (!this.waiting) this.deliver();
  }

  /** Hands events over, in order, until this turn's budget is spent; the rest waits for the next turn. */
  private deliver(): void {
    while (this.queue.length > 0) {
      const delivery = this.queue[0]!;
      const size = delivery.event?.data.length ?? 0;
      while (delivery.next < delivery.viewers.length) {
        if (this.spent.viewers >= SLICE_VIEWERS || (this.spent.viewers > 0 && this.spent.bytes + size > SLICE_BYTES)) {
          this.waiting = true;
          return;
        }
        const viewer = delivery.viewers[delivery.next++]!;
        if (!this.viewers.has(viewer)) continue;
        this.spend(size);
        this.handOver(viewer, delivery.event);
      }
      this.queue.shift();
      if (delivery.event === null) {
        this.viewers.clear();
        this.liveViewers.clear();
        this.delivered();
      }
    }
  }

  private spend(bytes: number): void {
    this.spent.viewers++;
    this.spent.bytes += bytes;
    if (this.turnScheduled) return;
    this.turnScheduled = true;
    setImmediate(() => {
      this.turnScheduled = false;
      this.spent = { viewers: 0, bytes: 0 };
      if (this.waiting) {
        this.waiting = false;
        this.deliver();
      }
    });
  }

  private handOver(viewer: RunViewer, event: RunEvent | LiveEvent | null): void {
    try {
      if (event === null) viewer.end();
      else if ('id' in event) viewer.send(event);
      else viewer.sendLive?.(event);
    } catch (err) {
      this.remove(viewer);
      this.onError(viewer, err);
    }
  }
}
