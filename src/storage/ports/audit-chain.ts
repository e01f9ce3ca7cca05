import { createHash } from 'node:crypto';
import { PRUNED_EVENT_TYPE, type AuditEvent, type ChainedAuditEvent } from './audit.js';

export const GENESIS_HASH = '0'.repeat(64);

/**
 * Hash of one event linked to its predecessor: SHA-256 of the JSON array
 * `[prevHash, id, timestamp, …, JSON of detail]`. The field order is fixed here, not taken from
 * object iteration, so the same event always hashes the same way.
 */
export function eventHash(prevHash: string, event: AuditEvent): string {
  return createHash('sha256').update(`[${JSON.stringify(prevHash)},${eventHashBody(event)}`).digest('hex');
}

/**
 * The hashed text of an event without its link: everything after `[prevHash,`. It does not depend
 * on the predecessor, so a store may build it before it knows the chain's head and link and hash
 * it where the head is read: the PostgreSQL store does that in the database, under the chain lock.
 */
export function eventHashBody(event: AuditEvent): string {
  return JSON.stringify([
    event.id, event.timestamp, event.event_type, event.category, event.result, event.severity,
    event.actor, event.source, event.subsystem, event.action, event.session_id, event.task_id,
    JSON.stringify(event.detail),
  ]).slice(1);
}

/**
 * Checks a run of chained events, oldest first, one at a time: the database's own chain
 * (`AuditStore.verify`) and an exported file (`agentd audit verify FILE`) are walked the same way.
 */
export class ChainWalk {
  count = 0;
  /** The `prev_hash` of the first event: genesis, or the last event before this run. */
  start: string | null = null;
  private prev: string | null = null;
  private readonly anchors = new Set<string>();

  /** Why `event`, the next one, breaks the chain; null when it links to the previous one and its hash is right. */
  next(event: ChainedAuditEvent): string | null {
    this.count++;
    if (this.prev === null) this.start = this.prev = event.prev_hash;
    if (event.prev_hash !== this.prev) return 'prev_hash does not match the previous event (event removed or reordered)';
    if (eventHash(this.prev, event) !== event.hash) return 'hash does not match the content (event modified)';
    if (event.event_type === PRUNED_EVENT_TYPE && typeof event.detail.last_hash === 'string') this.anchors.add(event.detail.last_hash);
    this.prev = event.hash;
    return null;
  }

  /** Hash of the last event walked (null before the first). */
  get head(): string | null {
    return this.prev;
  }

  /**
   * A log that does not start at genesis is complete only when a pruning record later in it vouches
   * for the range removed before its first event.
   */
  get startVouched(): boolean {
    return this.start === null || this.start === GENESIS_HASH || this.anchors.has(this.start);
  }
}
