export type AuditResult = 'allow' | 'deny' | 'error';
export type AuditSeverity = 'info' | 'warning' | 'error';

/** What a caller hands to `audit.emit()`. Everything but the first three fields is optional. */
export interface AuditInput {
  event_type: string;
  category: string;
  result: AuditResult;
  severity?: AuditSeverity;
  actor?: string | null;
  source?: string | null;
  subsystem?: string | null;
  action?: string | null;
  session_id?: string | null;
  task_id?: string | null;
  detail?: Record<string, unknown>;
  /**
   * The HTTP request the event was recorded for (its `X-Request-Id`), so an operator can find its
   * log lines; stored as `detail.request_id`.
   */
  request_id?: string;
}

/** A stored event, as the audit endpoint returns it. */
export interface AuditEvent {
  id: string;
  timestamp: string;
  event_type: string;
  category: string;
  result: AuditResult;
  severity: AuditSeverity;
  actor: string | null;
  source: string | null;
  subsystem: string | null;
  action: string | null;
  session_id: string | null;
  task_id: string | null;
  detail: Record<string, unknown>;
}

/**
 * The narrow interface every subsystem depends on to record what it did. The promise settles once
 * the event is stored; it rejects when it could not be (callers that cannot wait catch and log).
 */
export interface AuditSink {
  emit(input: AuditInput): Promise<AuditEvent>;
}

export type ChainVerdict =
  | { ok: true; count: number }
  | { ok: false; count: number; brokenAt: { seq: number; id: string; reason: string } };

/** The oldest events retention removed, as recorded in the chain by the event that says so. */
export interface PrunedRange {
  removed: number;
  /** Hash of the newest removed event: the oldest kept event links to it. */
  last_hash: string;
  first_timestamp: string;
  last_timestamp: string;
}

/** The event type that records a pruned range; its `detail` is a `PrunedRange`. */
export const PRUNED_EVENT_TYPE = 'audit.pruned';

/**
 * Stored audit events: an append-only, hash-chained log. The backend keeps the chain head and
 * advances it only for events that committed. Every backend passes `describeAuditStore`.
 */
export interface AuditStore {
  /** Chains the (already redacted) event to the last stored one and stores it. */
  append(event: AuditEvent): Promise<void>;
  count(): Promise<number>;
  /**
   * Walks the chain from the oldest kept event. A chain that does not start at the genesis hash is
   * only valid when a `PRUNED_EVENT_TYPE` event records the range before it.
   */
  verify(): Promise<ChainVerdict>;
  /**
   * Removes events older than `cutoff` (ISO 8601), oldest first, in slices; each slice appends, in
   * its own transaction, the event `record(range)` builds, so the chain stays verifiable whenever
   * the process stops. Returns how many events went.
   */
  pruneBefore(cutoff: string, record: (range: PrunedRange) => AuditEvent, options?: { signal?: AbortSignal }): Promise<number>;
}
