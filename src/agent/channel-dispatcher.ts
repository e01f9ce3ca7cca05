import type { Logger } from '../log.js';
import type { RunRecord } from './types.js';

/** What a channel offers the dispatcher: a non-blocking inbox and a way to deliver the reply. */
export interface ChannelInbox {
  receive(): { content: string; sender: string } | undefined;
  send(text: string): void;
}

/** The part of the agent runtime the dispatcher drives. */
export interface ChannelRunner {
  startChannelRun(request: { sessionId: string; message: string }): Promise<RunRecord>;
  whenRunFinished(runId: string): Promise<RunRecord | null>;
}

export interface ChannelDispatcherOptions {
  inbox: ChannelInbox;
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
export class ChannelDispatcher {
  private readonly pending = new Map<string, string[]>();
  private readonly active = new Set<string>();
  private readonly inFlight = new Set<Promise<void>>();
  private pendingCount = 0;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(private readonly options: ChannelDispatcherOptions) {}

  start(): void {
    this.timer = setInterval(() => this.pump(), this.options.pollIntervalMs ?? 50);
    this.timer.unref();
  }

  /** Stop taking messages; wait for the runs already started to finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    // Accepted (202) but never run: the caller was told "queued", so the operator is told here.
    if (this.pendingCount > 0) {
      this.options.log.warn(`${this.options.sessionPrefix}: ${this.pendingCount} accepted messages were not run before shutdown`);
    }
    await Promise.allSettled([...this.inFlight]);
  }

  /** Take what the inbox holds (up to the pending cap) and start every idle sender's next message. */
  pump(): void {
    if (this.stopped) return;
    const cap = this.options.maxPending ?? 1000;
    while (this.pendingCount < cap) {
      const message = this.options.inbox.receive();
      if (!message) break;
      const queue = this.pending.get(message.sender) ?? [];
      queue.push(message.content);
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
    const sessionId = `${this.options.sessionPrefix}:${sender}`;
    const done = this.options.runner
      .startChannelRun({ sessionId, message })
      .then(
        async (run) => {
          const finished = await this.options.runner.whenRunFinished(run.run_id);
          this.options.inbox.send(finished?.response ?? `error: ${finished?.error ?? 'run ended without a reply'}`);
        },
        (error: unknown) => {
          // Refused before it started (provider unavailable, shutting down, session busy elsewhere).
          this.options.log.warn(`${this.options.sessionPrefix} message from ${sender} not run: ${(error as Error).message}`);
          this.options.inbox.send(`error: ${(error as Error).message}`);
        },
      )
      .catch((error: unknown) => this.options.log.error(`${this.options.sessionPrefix} message from ${sender} failed: ${(error as Error).message}`))
      .finally(() => {
        this.active.delete(sender);
        this.inFlight.delete(done);
        this.pump();
      });
    this.inFlight.add(done);
  }
}
