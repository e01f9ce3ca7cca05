import type { Logger } from '../log.js';
import { StorageUnavailableError } from '../storage/ports/errors.js';
import { AgentError } from '../contracts/agent-errors.js';
import type { ChannelRunRequest, RunRecord } from '../storage/ports/runs.js';

/** One message a channel hands over. */
export interface ChannelMessage {
  content: string;
  sender: string;
  /** The id its run must get, when the channel chose one as it stored the message. */
  runId?: string;
}

/**
 * What a channel offers the dispatcher: a non-blocking inbox that says when it has something, and
 * a way to deliver the reply.
 */
export interface ChannelInbox<M extends ChannelMessage = ChannelMessage> {
  receive(): M | undefined;
  /**
   * Calls `wake` whenever `receive` may have a message for it (one came, a claim freed, a back-off
   * ended), so the dispatcher takes it at once and does nothing while the inbox is empty. Returns
   * the way to stop listening.
   */
  listen(wake: () => void): () => void;
  /**
   * The reply to `message`: the run's answer, or `error: …` when it failed or was refused
   * (`outcome` says which, and the run's id when it has one).
   */
  send(text: string, message: M, outcome: ReplyOutcome): void;
  /** The message's run exists, or it was refused and will never run (a durable inbox stops keeping it). */
  settled?(message: M): void;
  /** The message's run has ended and let go of its session: the sender's next message may start anywhere. */
  finished?(message: M): void;
  /**
   * The message's run could not be started for a passing reason (the database or the bus between
   * replicas was unreachable): it is not settled and is offered again after a back-off (a durable
   * inbox claims it again, and finds its run if the start did commit). Absent: the dispatcher
   * offers it again itself.
   */
  retry?(message: M, afterMs: number): void;
}

/** How a message's turn ended, for a channel that answers differently when it failed. */
export interface ReplyOutcome {
  /** The run's id; null when the start was refused before the message had one. */
  runId: string | null;
  /** The run ended in error or was cancelled, or the start was refused. */
  failed: boolean;
}

/** First wait before a message whose start failed for a passing reason is tried again; it doubles up to the max. */
export const START_RETRY_MS = 500;
export const START_RETRY_MAX_MS = 10_000;

/**
 * Whether a start failed for a passing reason: nothing about the message is wrong, the database or
 * the bus between replicas could not be reached. Anything else (validation, budget, provider) is a
 * refusal that would be made again.
 */
export function isPassingFailure(error: unknown): boolean {
  if (error instanceof StorageUnavailableError) return true;
  return error instanceof AgentError && (error.code === 'storage_unavailable' || error.code === 'coordination_unavailable');
}

/** The part of the agent runtime the dispatcher drives. */
export interface ChannelRunner {
  startChannelRun(request: ChannelRunRequest): Promise<RunRecord>;
  whenRunFinished(runId: string): Promise<RunRecord | null>;
}

export interface ChannelDispatcherOptions<M extends ChannelMessage> {
  inbox: ChannelInbox<M>;
  runner: ChannelRunner;
  /**
   * The channel: session ids are `<prefix>:<sender>`, stable across restarts (spend caps follow
   * them), and its runs are recorded with it as their source.
   */
  sessionPrefix: ChannelRunRequest['source'] & ('webhook' | 'discord');
  log: Logger;
  /** The provider its runs use; absent or null: the default one. */
  provider?: string | null;
  /** Messages taken from the inbox but not yet started, across all senders. */
  maxPending?: number;
}

/**
 * Drains a channel's inbox into agent runs: one session per sender, one run at a time per
 * sender, messages of a sender in arrival order. It is woken by the inbox and by its own runs'
 * ends, never by a clock, so an idle channel costs nothing. It stops taking messages while `maxPending` wait,
 * so a flood backs up into the channel's own bounded queue (which then answers 503) instead of
 * growing memory here. Each reply is handed to `inbox.send`.
 */
export class ChannelDispatcher<M extends ChannelMessage = ChannelMessage> {
  private readonly pending = new Map<string, M[]>();
  private readonly active = new Set<string>();
  private readonly inFlight = new Set<Promise<void>>();
  /** Senders whose first message waits for a retry after a passing failure, with how many tries failed. */
  private readonly backingOff = new Map<string, NodeJS.Timeout>();
  private readonly failedStarts = new Map<string, number>();
  private pendingCount = 0;
  private unlisten: (() => void) | null = null;
  private stopped = false;

  constructor(private readonly options: ChannelDispatcherOptions<M>) {}

  /** Takes what the inbox holds now, then whatever it announces. */
  start(): void {
    this.unlisten ??= this.options.inbox.listen(() => this.pump());
    this.pump();
  }

  /**
   * Stop taking messages; wait for the runs already started to finish. Resolves with how many
   * messages were taken from the inbox but never started (the caller says what becomes of them).
   */
  async stop(): Promise<number> {
    this.stopped = true;
    this.unlisten?.();
    this.unlisten = null;
    for (const timer of this.backingOff.values()) clearTimeout(timer);
    this.backingOff.clear();
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
      if (!this.active.has(sender) && !this.backingOff.has(sender)) this.startNext(sender);
    }
  }

  private startNext(sender: string): void {
    const queue = this.pending.get(sender);
    const message = queue?.shift();
    if (!queue || message === undefined) return;
    if (queue.length === 0) this.pending.delete(sender);
    this.pendingCount--;

    this.active.add(sender);
    const { inbox, runner, sessionPrefix, log, provider } = this.options;
    const sessionId = `${sessionPrefix}:${sender}`;
    const done = runner
      .startChannelRun({ sessionId, message: message.content, runId: message.runId, source: sessionPrefix, provider })
      .then(
        async (run) => {
          this.failedStarts.delete(sender);
          inbox.settled?.(message);
          const finished = await runner.whenRunFinished(run.run_id);
          inbox.finished?.(message);
          const answer = finished?.status === 'error' || finished?.status === 'cancelled' ? null : finished?.response ?? null;
          const failed = answer === null;
          inbox.send(answer ?? `error: ${finished?.error ?? 'run ended without a reply'}`, message, { runId: run.run_id, failed });
        },
        (error: unknown) => {
          // Refused before it started. During shutdown the message is left as it is (a durable
          // inbox runs it at the next start); a refusal (provider unavailable, budget, session
          // busy elsewhere) would be refused again, so it is settled.
          if (error instanceof AgentError && error.code === 'shutting_down') {
            this.pendingCount++;
            return;
          }
          // A passing failure (the database or the bus unreachable) is not a refusal: the message
          // is not settled (a durable inbox keeps its text and claims it again), and runs later.
          if (isPassingFailure(error)) {
            this.retryLater(sender, message, error as Error);
            return;
          }
          this.failedStarts.delete(sender);
          inbox.settled?.(message);
          log.warn(`${sessionPrefix} message from ${sender} not run: ${(error as Error).message}`);
          inbox.send(`error: ${(error as Error).message}`, message, { runId: message.runId ?? null, failed: true });
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

  private retryLater(sender: string, message: M, error: Error): void {
    const { inbox, sessionPrefix, log } = this.options;
    const attempts = (this.failedStarts.get(sender) ?? 0) + 1;
    this.failedStarts.set(sender, attempts);
    const delay = Math.min(START_RETRY_MS * 2 ** (attempts - 1), START_RETRY_MAX_MS);
    log.warn(`${sessionPrefix} message from ${sender} not started yet (${error.message}); trying again in ${delay} ms`);
    if (inbox.retry) {
      inbox.retry(message, delay);
      return;
    }
    // Offered again first, before the sender's later messages, once the back-off has passed.
    const queue = this.pending.get(sender) ?? [];
    queue.unshift(message);
    this.pending.set(sender, queue);
    this.pendingCount++;
    const timer = setTimeout(() => {
      this.backingOff.delete(sender);
      this.pump();
    }, delay);
    timer.unref();
    this.backingOff.set(sender, timer);
  }
}
