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
  /** The id its run gets: chosen at acceptance, so a restart can tell whether the run was created. */
  run_id: string;
}

export interface InboxMessage extends NewInboxMessage {
  /** Position in arrival order (ascending). */
  id: number;
}

export type InboxAcceptOutcome = 'queued' | 'duplicate' | 'full';

export interface InboxAcceptRules {
  /** A message with the same `request_id` received at or after this time makes this one a duplicate. */
  duplicatesSince: string;
  /** Most messages of the channel that may wait for their run; past it `full`. */
  capacity: number;
}

/**
 * Durable intake of channel messages. A message waits from its acceptance until its run exists
 * (`markStarted`); only waiting messages are run after a restart. Started ones are kept (text
 * erased) for the duplicate window, then pruned.
 */
export interface InboxStore {
  /** Stores the message (resolves after the commit) unless it is a duplicate or the channel is full. */
  accept(message: NewInboxMessage, rules: InboxAcceptRules): Promise<InboxAcceptOutcome>;
  /** Waiting messages of the channel, oldest first, at most `limit`. */
  waiting(channel: string, limit: number): Promise<InboxMessage[]>;
  /** The message's run exists, or it will never run: it stops waiting and its text is erased. */
  markStarted(runId: string): Promise<void>;
  /** Deletes started messages received before `cutoff` (their keys no longer catch duplicates). */
  pruneStartedBefore(cutoff: string, options?: { signal?: AbortSignal }): Promise<number>;
}
