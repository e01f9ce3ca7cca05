import type { BusListener, RunEventBus, TextPiece } from '../runs/run-event-bus.js';
import type { RunEvent, RunEventName } from '../storage/ports/runs.js';
import type { RedisConnection } from './redis-connection.js';

/**
 * The run-event bus on Redis pub/sub: one channel per run for its committed events, one channel for
 * cancel requests. Pub/sub keeps nothing (a message nobody hears is gone, and so is one sent while
 * a connection is down): the watchers fill gaps from the run store, which the bus only signals.
 *
 * Publishing goes through the command connection (short timeout, no offline queue: a failure is
 * logged and dropped, never buffered). Subscriptions have their own connection, as pub/sub needs;
 * after it reconnects every channel still wanted is subscribed again and the watchers are told
 * to re-read the store.
 */
export class RedisRunEventBus implements RunEventBus {
  private readonly listeners = new Map<string, Set<BusListener>>();
  private readonly cancelListeners: ((runId: string) => void)[] = [];
  private readonly resumeListeners: (() => void)[] = [];
  private readonly cancelChannel: string;
  private readonly eventsPrefix: string;
  private connectedOnce = false;

  constructor(
    private readonly commands: RedisConnection,
    private readonly subscriber: RedisConnection,
    keyPrefix: string,
  ) {
    this.cancelChannel = `${keyPrefix}run-cancel`;
    this.eventsPrefix = `${keyPrefix}run-events:`;
    subscriber.client.on('message', (channel: string, message: string) => this.dispatch(channel, message));
    subscriber.client.on('ready', () => this.resubscribe());
  }

  publish(runId: string, event: RunEvent): void {
    this.commands.client
      .publish(this.eventsPrefix + runId, `${event.id}\n${event.name}\n${event.data}`)
      .catch((error: unknown) => this.commands.reportFailure('publishing a run event', error));
  }

  /** On the run's channel too (so it stays in order with the events), marked by its first character. */
  publishText(runId: string, piece: TextPiece): void {
    this.commands.client
      .publish(this.eventsPrefix + runId, `${TEXT_MARK}${piece.offset}\n${piece.text}`)
      .catch((error: unknown) => this.commands.reportFailure('publishing a run\'s text', error));
  }

  async subscribe(runId: string, event: (event: RunEvent) => void, text?: (piece: TextPiece) => void): Promise<() => void> {
    const listener: BusListener = { event, text };
    const channel = this.eventsPrefix + runId;
    let set = this.listeners.get(channel);
    if (!set) {
      this.listeners.set(channel, (set = new Set()));
      // Down now: subscribed again on reconnect; the watcher reads the store meanwhile.
      await this.subscriber.client.subscribe(channel).catch(() => undefined);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size > 0 || this.listeners.get(channel) !== set) return;
      this.listeners.delete(channel);
      this.subscriber.client.unsubscribe(channel).catch(() => undefined);
    };
  }

  async requestCancel(runId: string): Promise<void> {
    await this.commands.client.publish(this.cancelChannel, runId);
  }

  onCancelRequest(listener: (runId: string) => void): void {
    this.cancelListeners.push(listener);
  }

  onResume(listener: () => void): void {
    this.resumeListeners.push(listener);
  }

  /** Runs with a subscription here. */
  get subscribedRuns(): number {
    return this.listeners.size;
  }

  /** On every (re)connection: the cancel channel and every run still watched. */
  private resubscribe(): void {
    const resumed = this.connectedOnce;
    this.connectedOnce = true;
    this.subscriber.client
      .subscribe(this.cancelChannel, ...this.listeners.keys())
      .catch((error: unknown) => this.subscriber.reportFailure('subscribing to run events', error))
      .finally(() => {
        if (resumed) for (const listener of this.resumeListeners) listener();
      });
  }

  private dispatch(channel: string, message: string): void {
    if (channel === this.cancelChannel) {
      for (const listener of this.cancelListeners) listener(message);
      return;
    }
    const listeners = this.listeners.get(channel);
    if (!listeners) return;
    if (message.startsWith(TEXT_MARK)) {
      const piece = parseText(message);
      if (piece !== null) for (const listener of listeners) listener.text?.(piece);
      return;
    }
    const event = parseEvent(message);
    if (event === null) return;
    for (const listener of listeners) listener.event(event);
  }
}

/** Starts a text message (an event message starts with its id's digits). */
const TEXT_MARK = '~';

/** `~<offset>\n<text>`. */
function parseText(message: string): TextPiece | null {
  const newline = message.indexOf('\n');
  if (newline < 0) return null;
  const offset = Number(message.slice(TEXT_MARK.length, newline));
  if (!Number.isSafeInteger(offset) || offset < 0) return null;
  return { offset, text: message.slice(newline + 1) };
}

/** `<id>\n<name>\n<data>` (data is one line of JSON, as stored and sent on the wire). */
function parseEvent(message: string): RunEvent | null {
  const first = message.indexOf('\n');
  const second = message.indexOf('\n', first + 1);
  if (first < 0 || second < 0) return null;
  const id = Number(message.slice(0, first));
  if (!Number.isSafeInteger(id) || id < 1) return null;
  return { id, name: message.slice(first + 1, second) as RunEventName, data: message.slice(second + 1) };
}
