import type { Logger } from '../log.js';
import { AgentError } from './errors.js';
import type { RunRecord } from './types.js';

/** One message a channel hands over. */
export interface ChannelMessage {
  content: string;
  sender: string;
  /** The id its run must get, when the channel chose one as it stored the message. */
  runId?: string;
}

/** What a channel offers the dispatcher: a non-blocking inbox and a way to deliver the reply. */
export interface ChannelInbox<M extends ChannelMessage = ChannelMessage> {
  receive(): M | undefined;
  send(text: string): void;
  /** The message's run exists, or it was refused and will never run (a durable inbox stops keeping it). */
  settled?(message: M): void;
  /** The message's run has ended and let go of its session: the sender's next message may start anywhere. */
  finished?(message: M): void;
}

/** The part of the agent runtime the dispatcher drives. */
export interface ChannelRunner {
  startChannelRun(request: { sessionId: string; message: string; runId?: string }): Promise<RunRecord>;
  whenRunFinished(runId: string): Promise<RunRecord | null>;
}

export interface ChannelDispatcherOptions<M extends ChannelMessage> {
  inbox: ChannelInbox<M>;
  runner: ChannelRunner;
  /** Session ids are `<prefix>:<sender>`, stable across restarts (spend caps follow them). */
  sessionPrefix: string;
  log: Logger;
  pollIntervalMs?: number;
  /** Messages taken from the inbox but not yet started, across all senders. */
  maxPending?: number;
}

/**
 * Drains a channel's inbox into agent runs: one session per sender, one run at a time per
 * sender, messages of a sender in arrival order. It stops taking messages while `maxPending` wait,
 * so a flood backs up into the channel's own bounded queue (which then answers 503) instead of
 * growing memory here. Each reply is handed to `inbox.send`.
 */
export class ChannelDispatcher<M extends ChannelMessage = ChannelMessage> {
  private readonly pending = new Map<string, M[]>();
  private readonly active = new Set<string>();
  private readonly inFlight = new Set<Promise<void>>();
  private pendingCount = 0;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(private readonly options: ChannelDispatcherOptions<M>) {}

  start(): void {
    this.timer = setInterval(() => this.pump(), this.options.pollIntervalMs ?? 50);
    this.timer.unref();
  }

  /**
   * Stop taking messages; wait for the runs already started to finish. Resolves with how many
   * messages were taken from the inbox but never started (the caller says what becomes of them).
   */
  async stop(): Promise<number> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await Promise.allSettled([...this.inFlight]);
    return this.pendingCount;
  }

  /** Take what the inbox holds (up to the pending cap) and start every idle sender's next message. */
  pump(): void {
    if (this.stopped) return;
    const cap = this.options.maxPending ?? 1000;
    while (this.pendingCount < cap) {
      const message = this.options.inbox.receive();
      if (!message) break;
      const queue = this.pending.get(message.sender) ?? [];
      queue.push(message);
      this.pending.set(message.sender, queue);
      this.pendingCount++;
    }
    for (const sender of this.pending.keys()) {
      if (!this.active.has(sender)) this.startNext(sender);
    }
  }

  private startNext(sender: string): void {
    const queue = this.pending.get(sender);
    const message = queue?.shift();
    if (!queue || message === undefined) return;
    if (queue.length === 0) this.pending.delete(sender);
    this.pendingCount--;

    this.active.add(sender);
    const { inbox, runner, sessionPrefix, log } = this.options;
    const sessionId = `${sessionPrefix}:${sender}`;
    const done = runner
      .startChannelRun({ sessionId, message: message.content, runId: message.runId })
      .then(
        async (run) => {
          inbox.settled?.(message);
          const finished = await runner.whenRunFinished(run.run_id);
          inbox.finished?.(message);
          inbox.send(finished?.response ?? `error: ${finished?.error ?? 'run ended without a reply'}`);
        },
        (error: unknown) => {
          // Refused before it started. During shutdown the message is left as it is (a durable
          // inbox runs it at the next start); any other refusal (provider unavailable, session
          // busy elsewhere) would be refused again, so it is settled.
          if (error instanceof AgentError && error.code === 'shutting_down') {
            this.pendingCount++;
            return;
          }
          inbox.settled?.(message);
          log.warn(`${sessionPrefix} message from ${sender} not run: ${(error as Error).message}`);
          inbox.send(`error: ${(error as Error).message}`);
        },
      )
      .catch((error: unknown) => log.error(`${sessionPrefix} message from ${sender} failed: ${(error as Error).message}`))
      .finally(() => {
        this.active.delete(sender);
        this.inFlight.delete(done);
        this.pump();
      });
    this.inFlight.add(done);
  }
}
