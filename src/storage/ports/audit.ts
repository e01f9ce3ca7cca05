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

/**
 * A stored event, as the audit endpoint returns it. Its text fields hold no lone surrogate and no
 * NUL (`AuditLog.prepare` replaces them, docs/resources.md#audit): a store writes them as they are
 * and reads back the very strings that were hashed.
 */
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
  emit(input: AuditInput, options?: AppendOptions): Promise<AuditEvent>;
}

/**
 * Builds events (redacted, with their id and time) for a store that writes them in a commit of its
 * own, linked into the chain there: the durable webhook intake commits a message and the event
 * saying it was accepted together.
 */
export interface AuditEventSource {
  prepare(input: AuditInput): AuditEvent;
}

export interface AppendOptions {
  /**
   * The event is a record nothing waits on: its commit may wait a few milliseconds to share another
   * write's (SQLite; see `SqliteUnitOfWork.runBatched`). It is still stored in order: no write made
   * after it commits before it. The promise still settles only after the commit.
   */
  batched?: boolean;
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

/** A stored event with its links in the chain: `hash` = `eventHash(prev_hash, event)` (chain.ts). */
export interface ChainedAuditEvent extends AuditEvent {
  prev_hash: string;
  hash: string;
}

/** The fields an audit query filters on by exact value. */
export const AUDIT_FILTER_FIELDS = [
  'event_type', 'category', 'result', 'severity', 'subsystem', 'actor', 'source', 'action', 'session_id', 'task_id',
] as const;
export type AuditFilterField = (typeof AUDIT_FILTER_FIELDS)[number];

/** A time range: `since` inclusive, `until` exclusive, both canonical ISO 8601 UTC (`toISOString()`). */
export interface AuditTimeRange {
  since?: string;
  until?: string;
}

/**
 * What the audit endpoint asks for. Every given field must match exactly; `q` is a substring of the
 * event type or of the detail's JSON text, compared lower-cased (see `auditText`), at least
 * `MIN_QUERY_CHARS` long.
 */
export interface AuditQuery extends AuditTimeRange, Partial<Record<AuditFilterField, string>> {
  q?: string;
  limit: number;
  offset: number;
}

/** The faceted fields, each counted over the whole filtered set. */
export const AUDIT_FACET_FIELDS = ['category', 'result', 'severity', 'subsystem'] as const;
export type AuditFacetField = (typeof AUDIT_FACET_FIELDS)[number];
/** One value of a facet (`null`: events without one) and how many events have it; most first. */
export interface FacetCount {
  value: string | null;
  count: number;
}
export type AuditFacets = Record<AuditFacetField, FacetCount[]>;

/**
 * Matches a query counts exactly. A backend may stop counting past this many (SQLite does for `q`,
 * whose every match is a row read): the total and facets are then estimates, the page stays exact.
 */
export const AUDIT_EXACT_TOTAL = 10_000;

/** One page of a query: newest first in chain order (SQLite: by timestamp, then chain order, the same while its one writer's clock runs forward), with the total. */
export interface AuditPage {
  events: ChainedAuditEvent[];
  /** Every matching event; exact unless `total_is_estimate`. */
  total: number;
  /** More than `AUDIT_EXACT_TOTAL` events match and `total` and the facet counts are estimated from the newest of them. */
  total_is_estimate: boolean;
  has_more: boolean;
  facets: AuditFacets;
}

/** How much the log holds (diagnostics). */
export interface AuditStats {
  count: number;
  oldest: string | null;
  newest: string | null;
}

/**
 * Stored audit events: an append-only, hash-chained log. The backend keeps the chain head and
 * advances it only for events that committed. Every backend passes `describeAuditStore`.
 */
export interface AuditStore {
  /** Chains the (already redacted) event to the last stored one and stores it. */
  append(event: AuditEvent, options?: AppendOptions): Promise<void>;
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
  /** One page of the events that match, the total and the facets of all of them (estimated past `AUDIT_EXACT_TOTAL` where the backend says so). */
  query(query: AuditQuery): Promise<AuditPage>;
  stats(): Promise<AuditStats>;
  /**
   * The contiguous part of the chain from the oldest event at or after `since` to the newest before
   * `until`, oldest first, read in bounded batches (an export for a SIEM, verifiable on its own).
   */
  exportChain(range: AuditTimeRange): AsyncIterable<ChainedAuditEvent>;
}
