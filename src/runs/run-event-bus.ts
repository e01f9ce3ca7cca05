import type { RunEvent } from '../storage/ports/runs.js';

/** A coalesced piece of a run's live text, and where it starts in the run's text (docs/api.md#run-event-stream). */
export interface TextPiece {
  offset: number;
  text: string;
}

/**
 * How the replicas of one service tell each other about runs. The run store stays the source of
 * truth: an event is published only after it is committed there, and a message that is lost (the
 * bus is at most once) is found again in the store by whoever watches the run. Without a bus the
 * service is one replica: its runs and their viewers all live in its own process.
 */
export interface RunEventBus {
  /** Announces a committed event of a run executing here. Never throws and never waits: a failure is logged. */
  publish(runId: string, event: RunEvent): void;
  /** Announces a piece of the live text of a run executing here; never stored, lost when nobody hears it. Never throws. */
  publishText(runId: string, piece: TextPiece): void;
  /**
   * Hears the events other replicas publish for `runId`, and with `onText` its live text. Resolves
   * with the way to stop listening once the subscription is in place (or could not be placed now:
   * the bus places it when it can; meanwhile the watcher relies on the store).
   */
  subscribe(runId: string, listener: (event: RunEvent) => void, onText?: (piece: TextPiece) => void): Promise<() => void>;
  /** Asks whichever replica executes `runId` to cancel it; rejects when the request could not be sent. */
  requestCancel(runId: string): Promise<void>;
  /** Hears cancel requests (for any run: the listener acts on the ones executing here). */
  onCancelRequest(listener: (runId: string) => void): void;
  /** Hears that the bus is back after an outage: messages may have been lost, watchers re-read the store. */
  onResume(listener: () => void): void;
}

/**
 * The bus between runtimes of one process: several replicas embedded side by side (and the tests of
 * the cross-replica paths). Delivery is synchronous and never lost.
 */
export class InProcessRunEventBus implements RunEventBus {
  private readonly listeners = new Map<string, Set<BusListener>>();
  private readonly cancelListeners: ((runId: string) => void)[] = [];

  publish(runId: string, event: RunEvent): void {
    for (const listener of this.listeners.get(runId) ?? []) listener.event(event);
  }

  publishText(runId: string, piece: TextPiece): void {
    for (const listener of this.listeners.get(runId) ?? []) listener.text?.(piece);
  }

  async subscribe(runId: string, event: (event: RunEvent) => void, text?: (piece: TextPiece) => void): Promise<() => void> {
    let set = this.listeners.get(runId);
    if (!set) this.listeners.set(runId, (set = new Set()));
    const listener: BusListener = { event, text };
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(runId) === set) this.listeners.delete(runId);
    };
  }

  async requestCancel(runId: string): Promise<void> {
    for (const listener of this.cancelListeners) listener(runId);
  }

  onCancelRequest(listener: (runId: string) => void): void {
    this.cancelListeners.push(listener);
  }

  /** Never interrupted. */
  onResume(): void {}

  /** Runs someone listens to (a test checks that listeners are released). */
  get subscribedRuns(): number {
    return this.listeners.size;
  }
}

/** One subscriber of a run's messages on a bus. */
export interface BusListener {
  event(event: RunEvent): void;
  text?: ((piece: TextPiece) => void) | undefined;
}
