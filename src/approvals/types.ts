/** Approvals as a resource (issue 16): a request that waits for an operator's decision. */

export type ApprovalKind = 'network' | 'tool';

/** What an operator may decide. */
export type OperatorDecision = 'allow_once' | 'allow_session' | 'deny';

/** How an approval was closed: by an operator, or failing closed (no answer, restart, cancelled run). */
export type ApprovalDecision = OperatorDecision | 'timeout' | 'interrupted' | 'withdrawn';

export type ApprovalState = 'pending' | 'allowed' | 'denied';

export const OPERATOR_DECISIONS: readonly OperatorDecision[] = ['allow_once', 'allow_session', 'deny'];

export interface ApprovalRecord {
  id: string;
  /** The run that waits; null for a synchronous chat. */
  run_id: string | null;
  session_id: string;
  kind: ApprovalKind;
  /**
   * The exact request as shown to the operator: `GET https://host/path?query` or `tool {canonical
   * JSON}`, long values folded, the service's own secrets masked (the audit log has it redacted).
   */
  request: string;
  /** HMAC-SHA256 (hex) of the exact request under the installation's key: the decision applies to this request only. */
  request_hash: string;
  /** What `allow_session` remembers for the session: the host (network) or the tool name. */
  scope: string;
  state: ApprovalState;
  decision: ApprovalDecision | null;
  /** Who decided: `api_key`, `web_session:<id>`, or `system` when the service failed closed. */
  decided_by: string | null;
  created_at: string;
  /** Past it, a pending approval is denied (`approval_timeout_seconds`). */
  expires_at: string;
  decided_at: string | null;
}

/** A decision to store: only a pending approval takes it. */
export interface ApprovalClose {
  decision: ApprovalDecision;
  decided_by: string;
  decided_at: string;
}

export const stateOf = (decision: ApprovalDecision): ApprovalState =>
  decision === 'allow_once' || decision === 'allow_session' ? 'allowed' : 'denied';

/**
 * Approvals, durable so that every replica sees them and a restart can deny what it left waiting.
 * The store is made for one owner (`Storage.owner`): the approvals it creates are that owner's.
 */
export interface ApprovalStore {
  create(record: ApprovalRecord): Promise<void>;
  get(id: string): Promise<ApprovalRecord | null>;
  /** The approvals among `ids` that are no longer pending (one read for everything waiting here). */
  closedAmong(ids: readonly string[]): Promise<ApprovalRecord[]>;
  /** Newest first; only pending ones when `pendingOnly`. */
  list(options: { pendingOnly: boolean; limit: number }): Promise<ApprovalRecord[]>;
  /**
   * Closes a pending approval in one atomic step; null when it is unknown or already closed (the
   * first decision wins, across replicas).
   */
  decide(id: string, close: ApprovalClose): Promise<ApprovalRecord | null>;
  /** Closes every pending approval of this owner (its previous process died waiting); returns them. */
  closeOwnPending(close: ApprovalClose): Promise<ApprovalRecord[]>;
  /** Closes pending approvals whose `expires_at` is before `close.decided_at` (their waiter is gone); returns them. */
  closeExpired(close: ApprovalClose, limit: number): Promise<ApprovalRecord[]>;
  /** Whether an operator allowed `scope` of this kind for the rest of the session. */
  allowedForSession(sessionId: string, kind: ApprovalKind, scope: string): Promise<boolean>;
  /** Whether the run waits for a decision now. */
  runWaiting(runId: string): Promise<boolean>;
  /** Deletes closed approvals decided before `cutoff` (ISO 8601), in slices; returns how many. */
  pruneClosedBefore(cutoff: string, options?: { signal?: AbortSignal }): Promise<number>;
}
