import type { ChannelInbox } from '../dispatcher.js';
import type { Logger } from '../../log.js';
import { RunAgain } from '../../util/run-again.js';
import { newTimeOrderedId } from '../../security/ids/tokens.js';
import { contentDigest, QUEUE_CAPACITY, requestIdKey, type IntakeOutcome, type SignatureToRecord, type WebhookIntake, type WebhookMessage } from '../webhook/index.js';
import type { InboxClaim, InboxMessage, InboxStore } from '../../storage/ports/inbox.js';
import type { AuditEvent } from '../../storage/ports/audit.js';

/** How long a sender's X-Request-Id catches a repeat of the same message. */
export const DUPLICATE_WINDOW_DAYS = 1;
const DUPLICATE_WINDOW_MS = DUPLICATE_WINDOW_DAYS * 86_400_000;
/**
 * Replay records are pruned only this long after they expired by this process's clock: a replica
 * whose clock is behind still counts them as live for that long (clocks of replicas are expected
 * to agree far better than this).
 */
export const SIGNATURE_PRUNE_MARGIN_MS = 10 * 60_000;

/** A stored message on its way to a run. */
export interface QueuedMessage {
  content: string;
  sender: string;
  runId: string;
  /** What the channel kept about the message (where to answer it). */
  metadata: Record<string, unknown>;
}

/** A message any channel hands to `store`: what it runs, and the key a repeat of it is known by. */
export interface MessageToStore {
  sender: string;
  content: string;
  metadata: Record<string, unknown>;
  /** Arrival time, ISO 8601 UTC. */
  received_at: string;
  /** The sender's own id for the message; a repeat within the duplicate window is not stored again. */
  requestId?: string;
  /** Recorded in the same commit (the webhook's signed requests). */
  signature?: SignatureToRecord;
  /** The audit event of its acceptance (or of a duplicate's), committed with it. */
  acceptance?: (duplicate: boolean) => AuditEvent;
}

export interface DurableInboxOptions {
  /** The channel's name in the store (`webhook`). */
  channel: string;
  store: InboxStore;
  /**
   * This runner in the store's claims: the replica's id on a shared database, the same after a
   * restart (so it takes its own claims back at once).
   */
  owner: string;
  /** Whether a run with this id exists: a message whose run was created before a crash is not run twice. */
  runExists(runId: string): Promise<boolean>;
  log: Logger;
  /** Messages that may wait for their run; past it a new one is answered 503. Default 1,000. */
  capacity?: number;
  /**
   * How long a claim holds unless renewed (default 30 s): the messages of a runner that died wait
   * this long before another takes them. Claims are renewed every third of it.
   */
  leaseMs?: number;
  now?: () => number;
}

/** Default claim lifetime: short enough that a dead replica's messages run soon, long enough to ride out a slow database. */
export const INBOX_LEASE_MS = 30_000;

/**
 * The webhook's durable intake, as `agentd serve` wires it: an accepted message is committed
 * (with its run's id, chosen now) before its sender hears 202. It runs once a runner claims it
 * from the store: the one that accepted it, at once, or, on a database shared by replicas,
 * whichever replica takes it (the claims say who; a claim that is not renewed ends). A sender's
 * messages are claimed in order, the next once the previous one's run exists (on a shared
 * database: once it has ended). A message whose run was created is never run again, whether that
 * run finished or was interrupted.
 */
export class DurableInbox implements WebhookIntake, ChannelInbox<QueuedMessage> {
  /** Claimed, not yet taken by the dispatcher; bounded by the store's capacity check. */
  private readonly queue: QueuedMessage[] = [];
  /** Run ids of the messages this runner claimed and has not settled (queued or with the dispatcher). */
  private readonly held = new Set<string>();
  /**
   * Messages whose start failed for a passing reason: still claimed by this runner, offered again
   * from this time. Only messages the last claim returned are kept, so it never outgrows the inbox.
   */
  private readonly retryAt = new Map<string, number>();
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private readonly accepting = new Set<Promise<unknown>>();
  /** `markStarted` writes in flight: stopping waits for them, so what it counts as waiting is. */
  private readonly starting = new Set<Promise<void>>();
  private readonly capacity: number;
  private readonly leaseMs: number;
  private readonly now: () => number;
  /** One claim at a time; a claim asked for while one runs runs once after it. */
  private readonly claims = new RunAgain(() => this.claim());
  private wake: (() => void) | undefined;
  private claiming = false;
  /** The next claim nobody asked for (renewal and take-over), when one is due. */
  private renewal: NodeJS.Timeout | null = null;
  private failing = false;
  /** A message's run exists but marking it started failed: the next claim marks it. */
  private unmarked = false;
  /** See `timesAt`. */
  private times: { at: number; claim: InboxClaim; duplicatesSince: string } | undefined;

  constructor(private readonly options: DurableInboxOptions) {
    this.capacity = options.capacity ?? QUEUE_CAPACITY;
    this.leaseMs = options.leaseMs ?? INBOX_LEASE_MS;
    this.now = options.now ?? Date.now;
  }

  /**
   * At start: settles what waits with a run already created (a process died between the two), and
   * claims what may run. Returns how many acknowledged messages wait for a run.
   */
  async recover(): Promise<number> {
    const { store, channel, runExists } = this.options;
    let waiting = 0;
    for (const message of await store.waiting(channel, this.capacity)) {
      if (await runExists(message.run_id)) await store.markStarted(message.run_id);
      else waiting++;
    }
    await this.pull();
    return waiting;
  }

  /** From now on renews this runner's claims and takes messages others left (their claims ended); see `scheduleClaim`. */
  startClaiming(): void {
    this.claiming = true;
    this.scheduleClaim();
  }

  /** Claims now what became free (a stopped replica's messages were given back), while claiming at all. */
  claimNow(): void {
    if (this.claiming) void this.pull();
  }

  /** Stops renewing and gives back the claims on messages not started, so another runner may take them at once. */
  async stopClaiming(): Promise<void> {
    this.claiming = false;
    this.scheduleClaim();
    for (const timer of this.retryTimers) clearTimeout(timer);
    this.retryTimers.clear();
    await Promise.allSettled([...this.starting]);
    await this.claims.current;
    await this.options.store.release(this.options.owner).catch((error: unknown) => {
      this.options.log.warn(`${this.options.channel}: could not give back claimed messages (${(error as Error).message}); others take them when the claims end`);
    });
  }

  accept(
    message: WebhookMessage, requestId: string | undefined, signature?: SignatureToRecord, acceptance?: (duplicate: boolean) => AuditEvent,
  ): Promise<IntakeOutcome> {
    return this.store({
      sender: message.sender, content: message.content, metadata: message.metadata as unknown as Record<string, unknown>,
      received_at: message.received_at, requestId, signature, acceptance,
    });
  }

  /** Commits the message with its run's id, chosen now; a `queued` one is then claimed to run. */
  async store(message: MessageToStore): Promise<IntakeOutcome> {
    const runId = newTimeOrderedId('run');
    const now = this.now();
    const { requestId, signature } = message;
    const stored = this.options.store.accept({
      channel: this.options.channel,
      sender: message.sender,
      content: message.content,
      metadata: message.metadata,
      received_at: message.received_at,
      request_id: requestId === undefined ? null : requestIdKey(requestId),
      body_digest: requestId === undefined ? null : contentDigest(message.content),
      run_id: runId,
    }, {
      duplicatesSince: this.timesAt(now).duplicatesSince,
      capacity: this.capacity,
      signature: signature && {
        signature: signature.signature,
        expiresAt: new Date(signature.expiresAtMs).toISOString(),
        now: new Date(now).toISOString(),
        pruneBefore: new Date(now - SIGNATURE_PRUNE_MARGIN_MS).toISOString(),
      },
      claim: this.claimTerms(now),
      audit: message.acceptance,
    });
    this.accepting.add(stored);
    try {
      const outcome = await stored;
      // Committed: the sender hears 202 now. A message claimed in that commit runs at once; any
      // other waits behind its sender's earlier ones: a store of one process claims it as the
      // previous one starts (`settled`), a shared one when this runner claims next.
      if (outcome === 'claimed') {
        this.hold({ content: message.content, sender: message.sender, runId, metadata: message.metadata });
        this.wake?.();
        return 'queued';
      }
      if (outcome === 'queued' && this.options.store.sharedByReplicas) void this.pull();
      return outcome;
    } finally {
      this.accepting.delete(stored);
    }
  }

  /** Settles once every acceptance in progress has been committed or has failed. */
  async whenAccepted(): Promise<void> {
    await Promise.allSettled([...this.accepting]);
  }

  receive(): QueuedMessage | undefined {
    return this.queue.shift();
  }

  /** `wake` is called each time a claim queued messages for `receive`. */
  listen(wake: () => void): () => void {
    this.wake = wake;
    return () => {
      if (this.wake === wake) this.wake = undefined;
    };
  }

  settled(message: QueuedMessage): void {
    const marked = this.options.store.markStarted(message.runId, this.claimTerms(this.now())).then(
      (next) => {
        this.held.delete(message.runId);
        // The sender's next message may run now: a store of one process claimed it in the same
        // commit; a shared one leaves it to the next claim.
        if (this.options.store.sharedByReplicas) return void this.pull();
        // Should its run check fail, a claim takes it again (and retries while the store fails).
        // Part of `marked`: stopping waits for it too.
        if (next) return this.offer(next).then((queued) => void (queued && this.wake?.()), () => void this.pull());
      },
      (error: unknown) => {
        // The run exists: the next claim finds it (this runner's own claim included) and marks it then.
        this.held.delete(message.runId);
        this.unmarked = true;
        this.scheduleClaim();
        this.options.log.warn(`${this.options.channel}: could not mark message of run ${message.runId} started: ${(error as Error).message}`);
      },
    );
    this.starting.add(marked);
    void marked.finally(() => this.starting.delete(marked));
  }

  /**
   * Its start failed for a passing reason (the database unreachable): it stays waiting, text kept,
   * and this runner's claim on it is renewed as before. It is claimed again after `afterMs`. Should
   * the start have committed after all, it is not run twice: on PostgreSQL the run's creation took
   * it out of the waiting ones in the same statement, elsewhere that claim finds its run and marks
   * it started instead.
   */
  retry(message: QueuedMessage, afterMs: number): void {
    this.held.delete(message.runId);
    this.retryAt.set(message.runId, this.now() + afterMs);
    const timer = setTimeout(() => {
      this.retryTimers.delete(timer);
      if (this.claiming) void this.pull();
    }, afterMs);
    timer.unref();
    this.retryTimers.add(timer);
  }

  finished(_message: QueuedMessage): void {
    // Where replicas share the store, the sender's next message waited for this run's end.
    if (this.options.store.sharedByReplicas) void this.pull();
  }

  /** Messages waiting for their retry time (supervision and tests). */
  get retrying(): number {
    return this.retryAt.size;
  }

  /** Messages of the channel stored and waiting for a run (on a shared database, any replica's). */
  async waitingCount(): Promise<number> {
    return (await this.options.store.waiting(this.options.channel, this.capacity)).length;
  }

  /** Webhook callers only get 202: the reply is acknowledged in the log by its length. */
  send(text: string): void {
    this.options.log.info(`${this.options.channel}: reply of ${text.length} characters (not delivered: webhook callers only get 202)`);
  }

  /** Claims now, or once more after the claim in progress. Never rejects. */
  private pull(): Promise<void> {
    return this.claims.run();
  }

  /**
   * The next claim nobody asks for, a third of the lease after this one: it renews this runner's
   * claims and takes what others left once their claims ended. It is due only while something
   * can come of it: on a store shared by replicas always (a replica may die holding messages, and
   * nothing else says so), on a store of this process alone only while this runner holds claims,
   * its last claim failed, or a started message is left to mark. Otherwise an idle service does
   * no work: a new message is claimed as it is accepted, a sender's next one as the previous one
   * settles.
   */
  private scheduleClaim(): void {
    if (this.renewal) clearTimeout(this.renewal);
    this.renewal = null;
    const due = this.options.store.sharedByReplicas || this.held.size > 0 || this.failing || this.unmarked;
    if (!this.claiming || !due) return;
    this.renewal = setTimeout(() => void this.pull(), Math.max(1, Math.floor(this.leaseMs / 3)));
    this.renewal.unref();
  }

  /** This runner's claim from `now`, for the store. */
  private claimTerms(now: number): InboxClaim {
    return this.timesAt(now).claim;
  }

  /**
   * The times a store is handed for `now`, formatted once per millisecond: under load many messages
   * arrive and start within one, and three date formats per message were a visible part of its cost.
   */
  private timesAt(now: number): { claim: InboxClaim; duplicatesSince: string } {
    if (this.times?.at !== now) {
      this.times = {
        at: now,
        claim: { owner: this.options.owner, now: new Date(now).toISOString(), until: new Date(now + this.leaseMs).toISOString(), limit: this.capacity },
        duplicatesSince: new Date(now - DUPLICATE_WINDOW_MS).toISOString(),
      };
    }
    return this.times;
  }

  /**
   * A message this runner claimed: queued for the dispatcher (true) unless it is queued already,
   * waits for its retry, or its run exists.
   */
  private async offer(message: InboxMessage): Promise<boolean> {
    if (this.held.has(message.run_id)) return false;
    const retryAt = this.retryAt.get(message.run_id);
    if (retryAt !== undefined && retryAt > this.now()) return false;
    this.retryAt.delete(message.run_id);
    if (await this.options.runExists(message.run_id)) {
      // Its run was created by a runner that stopped before saying so: the sender's next one may go.
      await this.options.store.markStarted(message.run_id);
      void this.pull();
      return false;
    }
    // Claimed twice meanwhile (a claim ran while the run check waited): queued once.
    if (this.held.has(message.run_id)) return false;
    this.hold({ content: message.content, sender: message.sender, runId: message.run_id, metadata: message.metadata });
    return true;
  }

  /** Queues a message this runner claimed; its claim is renewed while it is held. */
  private hold(message: QueuedMessage): void {
    this.held.add(message.runId);
    this.queue.push(message);
    if (this.renewal === null) this.scheduleClaim();
  }

  /** Claims (and so renews) what this runner may run; new messages go to the queue, and the dispatcher is woken. */
  private async claim(): Promise<void> {
    const { store, channel, log } = this.options;
    let queued = false;
    try {
      const claimed = await store.claim(channel, this.claimTerms(this.now()));
      for (const message of claimed) {
        if (await this.offer(message)) queued = true;
      }
      // A retrying message the claim did not return is no longer this runner's to start: its run
      // was created after all (on PostgreSQL that takes it out of the waiting ones) or another
      // replica took it over. Its retry time would otherwise be kept for good.
      const stillClaimed = new Set(claimed.map((message) => message.run_id));
      for (const runId of this.retryAt.keys()) if (!stillClaimed.has(runId)) this.retryAt.delete(runId);
      if (this.failing) log.info(`${channel}: claiming messages works again`);
      this.failing = false;
      this.unmarked = false;
    } catch (error) {
      // The store is unreachable: the messages stay stored and are claimed on a later try.
      if (!this.failing) log.warn(`${channel}: could not claim waiting messages (${(error as Error).message}); retrying`);
      this.failing = true;
    }
    this.scheduleClaim();
    if (queued) this.wake?.();
  }
}
