import type { AuditEvent } from './audit.js';

/** A message a channel accepted and must run, as it is stored before its sender is answered. */
export interface NewInboxMessage {
  /** Which channel accepted it (`webhook`). */
  channel: string;
  sender: string;
  /** The text to run, unchanged; erased once its run exists (the run keeps a censored copy). */
  content: string;
  /** What the channel keeps about the request (the webhook's headers). */
  metadata: Record<string, unknown>;
  /** Arrival time, ISO 8601 UTC. */
  received_at: string;
  /**
   * The sender's request id (X-Request-Id; a long one by its hash), by which a repeat is found;
   * null without one.
   */
  request_id: string | null;
  /**
   * SHA-256 of the content (hex): a repeat of the sender's `request_id` with the same digest is a
   * retry (`duplicate`), with another one a `conflict`. Absent or null: any repeat is a retry.
   * Only written, never read back with the message.
   */
  body_digest?: string | null;
  /** The id its run gets: chosen at acceptance, so a restart can tell whether the run was created. */
  run_id: string;
}

export interface InboxMessage extends Omit<NewInboxMessage, 'body_digest'> {
  /** Position in arrival order (ascending). */
  id: number;
}

/**
 * - `queued`: stored (and its signature recorded).
 * - `claimed`: as `queued`, and claimed by the rules' `claim` in the same commit.
 * - `duplicate`: the sender's `request_id` was accepted before with the same content; nothing stored.
 * - `conflict`: the sender's `request_id` was accepted before with other content; nothing stored.
 * - `replay`: the signature was accepted before and has not expired; nothing stored.
 * - `full`: the channel has `capacity` messages waiting; nothing stored.
 */
export type InboxAcceptOutcome = 'queued' | 'claimed' | 'duplicate' | 'conflict' | 'replay' | 'full';

/** A signed request's signature, kept so the same signed request is accepted once. */
export interface SignatureRecord {
  /** The signature as the channel compares it (lower case). */
  signature: string;
  /** ISO 8601: from then on the channel's timestamp check refuses the request anyway. */
  expiresAt: string;
  /** Now, ISO 8601: a recorded signature whose `expiresAt` is not after it no longer counts. */
  now: string;
  /**
   * ISO 8601: records that expired before it may be removed as this one is written (a margin
   * before `now`, for replicas whose clocks run behind).
   */
  pruneBefore: string;
}

export interface InboxAcceptRules {
  /**
   * A message of the same sender with the same `request_id` received at or after this time makes
   * this one a duplicate (or a conflict). Request ids of different senders never meet.
   */
  duplicatesSince: string;
  /** Most messages of the channel that may wait for their run; past it `full`. */
  capacity: number;
  /**
   * Recorded in the same commit as the message, and checked before anything else: a message is
   * stored exactly when its signature is recorded, whatever number of replicas receive it at once.
   */
  signature?: SignatureRecord;
  /**
   * The runner that accepts it: a store of one process (`sharedByReplicas` false) claims the
   * message for it in the same commit when it may run at once (its sender has nothing else
   * waiting), and answers `claimed`, sparing a separate claim per message. A store shared by
   * replicas may ignore it: `claim` then takes the message as usual.
   */
  claim?: InboxClaim;
  /**
   * The audit event recording the acceptance: for a stored message (`queued`, `claimed`) with
   * `duplicate` false, for a `duplicate` with it true; the other outcomes record nothing here. A
   * store of one process (`sharedByReplicas` false) builds it inside the message's transaction and
   * links it into the chain there: one commit does both, and a message is never kept without its
   * event. A store shared by replicas appends it right after that commit (the chain's lock is the
   * replicas' to share). Either way `accept` resolves only once the event is committed.
   */
  audit?: (duplicate: boolean) => AuditEvent;
}

/** A runner taking messages to run: which runner, and until when its claim holds. */
export interface InboxClaim {
  /** The runner (a replica; the same one again after a restart). */
  owner: string;
  /** Now, ISO 8601: claims that ended before it are free. */
  now: string;
  /** When the claims this call makes or renews end, unless renewed again. */
  until: string;
  /** Most messages to take. */
  limit: number;
}

/**
 * Durable intake of channel messages. A message waits from its acceptance until its run exists
 * (`markStarted`); only waiting messages are run after a restart. Started ones are kept (text
 * erased) for the duplicate window, then pruned.
 */
export interface InboxStore {
  /**
   * Whether replicas share the store: then a sender's next message is claimable only once the
   * previous one's run has ended, so a runner claims again when one of its runs ends.
   */
  readonly sharedByReplicas: boolean;
  /** Stores the message (resolves after the commit) unless it is a duplicate or the channel is full. */
  accept(message: NewInboxMessage, rules: InboxAcceptRules): Promise<InboxAcceptOutcome>;
  /** Waiting messages of the channel, oldest first, at most `limit`. */
  waiting(channel: string, limit: number): Promise<InboxMessage[]>;
  /**
   * The message's run exists, or it will never run: it stops waiting and its text is erased. With
   * `next`, a store of one process also claims, in the same commit, the sender's next waiting
   * message for `next.owner` when it is free (as `claim` would) and returns it; a store shared by
   * replicas returns nothing (there the next one waits for this run's end, and `claim` takes it).
   */
  markStarted(runId: string, next?: InboxClaim): Promise<InboxMessage | void>;
  /**
   * Takes the channel's messages that may run now, oldest first: a waiting message that is the
   * oldest waiting one of its sender (so a sender's messages run in order, the next once the
   * previous one's run exists), and free: never claimed, its claim ended, or claimed by `owner`
   * already (taking it again renews the claim). Each is claimed by exactly one owner, whatever
   * number of runners ask at once. Where replicas share the store, a sender's next message is
   * also not taken while the previous one's run is unfinished, so one run at a time per sender
   * holds across replicas (a single process's dispatcher already waits for it).
   */
  claim(channel: string, claim: InboxClaim): Promise<InboxMessage[]>;
  /** Ends the owner's claims on messages that have not started (it stops): other runners may take them at once. */
  release(owner: string): Promise<void>;
  /** Deletes started messages received before `cutoff` (their keys no longer catch duplicates). */
  pruneStartedBefore(cutoff: string, options?: { signal?: AbortSignal }): Promise<number>;
  /**
   * Deletes signature records that expired before `cutoff` (the caller leaves a margin for replicas'
   * clocks). `accept` also removes a few expired ones with each record it writes, so the table stays
   * about the size of the live window between passes.
   */
  pruneSignaturesBefore(cutoff: string, options?: { signal?: AbortSignal }): Promise<number>;
}
