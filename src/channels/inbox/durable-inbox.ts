import type { ChannelInbox } from '../../agent/channel-dispatcher.js';
import type { Logger } from '../../log.js';
import { newId } from '../../security/tokens.js';
import { QUEUE_CAPACITY, requestIdKey, type IntakeOutcome, type WebhookIntake, type WebhookMessage } from '../webhook/index.js';
import type { InboxStore } from './types.js';

/** How long a sender's X-Request-Id catches a repeat of the same message. */
export const DUPLICATE_WINDOW_DAYS = 1;
const DUPLICATE_WINDOW_MS = DUPLICATE_WINDOW_DAYS * 86_400_000;

/** A stored message on its way to a run. */
export interface QueuedMessage {
  content: string;
  sender: string;
  runId: string;
}

export interface DurableInboxOptions {
  /** The channel's name in the store (`webhook`). */
  channel: string;
  store: InboxStore;
  /** Whether a run with this id exists: a message whose run was created before a crash is not run twice. */
  runExists(runId: string): Promise<boolean>;
  log: Logger;
  /** Messages that may wait for their run; past it a new one is answered 503. Default 1,000. */
  capacity?: number;
  now?: () => number;
}

/**
 * The webhook's durable intake, as `agentd serve` wires it: an accepted message is committed
 * (with its run's id, chosen now) before its sender hears 202, and handed to the dispatcher only
 * then. A restart runs what was acknowledged and has no run yet; a message whose run was created
 * is never run again, whether that run finished or was interrupted.
 */
export class DurableInbox implements WebhookIntake, ChannelInbox<QueuedMessage> {
  /** Committed, not yet taken by the dispatcher; bounded by the store's capacity check. */
  private readonly queue: QueuedMessage[] = [];
  private readonly accepting = new Set<Promise<unknown>>();
  private readonly capacity: number;
  private readonly now: () => number;

  constructor(private readonly options: DurableInboxOptions) {
    this.capacity = options.capacity ?? QUEUE_CAPACITY;
    this.now = options.now ?? Date.now;
  }

  /** Loads what a previous process acknowledged and did not run; call before the listener starts. */
  async recover(): Promise<number> {
    const { store, channel, runExists } = this.options;
    let queued = 0;
    for (const message of await store.waiting(channel, this.capacity)) {
      if (await runExists(message.run_id)) {
        await store.markStarted(message.run_id);
        continue;
      }
      this.queue.push({ content: message.content, sender: message.sender, runId: message.run_id });
      queued++;
    }
    return queued;
  }

  async accept(message: WebhookMessage, requestId: string | undefined): Promise<IntakeOutcome> {
    const runId = newId('run');
    const stored = this.options.store.accept({
      channel: this.options.channel,
      sender: message.sender,
      content: message.content,
      metadata: message.metadata as unknown as Record<string, unknown>,
      received_at: message.received_at,
      request_id: requestId === undefined ? null : requestIdKey(requestId),
      run_id: runId,
    }, { duplicatesSince: new Date(this.now() - DUPLICATE_WINDOW_MS).toISOString(), capacity: this.capacity });
    this.accepting.add(stored);
    try {
      const outcome = await stored;
      if (outcome === 'queued') this.queue.push({ content: message.content, sender: message.sender, runId });
      return outcome;
    } finally {
      this.accepting.delete(stored);
    }
  }

  /** Settles once every acceptance in progress has been committed or has failed. */
  async whenAccepted(): Promise<void> {
    await Promise.allSettled([...this.accepting]);
  }

  /** Committed messages the dispatcher has not taken yet. */
  get queued(): number {
    return this.queue.length;
  }

  receive(): QueuedMessage | undefined {
    return this.queue.shift();
  }

  settled(message: QueuedMessage): void {
    this.options.store.markStarted(message.runId).catch((error: unknown) => {
      // The run exists: at the next start it is found, and the message is not run again.
      this.options.log.warn(`${this.options.channel}: could not mark message of run ${message.runId} started: ${(error as Error).message}`);
    });
  }

  /** Webhook callers only get 202: the reply is acknowledged in the log by its length. */
  send(text: string): void {
    this.options.log.info(`${this.options.channel}: reply of ${text.length} characters (not delivered: webhook callers only get 202)`);
  }
}
