/** Approvals as a resource (issue 16): a request that waits for an operator's decision. */

export type ApprovalKind = 'network' | 'tool';

/** What an operator may decide. */
export type OperatorDecision = 'allow_once' | 'allow_session' | 'deny';

/** How an approval was closed: by an operator, or failing closed (no answer, restart, cancelled run). */
export type ApprovalDecision = OperatorDecision | 'timeout' | 'interrupted' | 'withdrawn';

export type ApprovalState = 'pending' | 'allowed' | 'denied';

/**
 * The policy stage an approval overrides, part of what `allow_session` covers: `host` (the origin
 * is not allowed), `rest` (an explicit REST deny rule: never granted for the session), `tool`.
 */
export type ApprovalGrantStage = 'host' | 'rest' | 'tool';

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
  /**
   * What `allow_session` would cover, with `grant_stage`: the origin (`https://host:port`) for a
   * network request, the exact tool name for a tool call.
   */
  scope: string;
  grant_stage: ApprovalGrantStage;
  /** The config rule the approval overrides (`network.rest_policies[2]`), when one refused it. */
  grant_rule: string | null;
  /** False when only `allow_once` is offered (an explicit REST deny, a channel request outside a run). */
  session_grant_allowed: boolean;
  /** Set on channel sessions: an `allow_session` grant holds for this run only. */
  grant_run_id: string | null;
  /** When the grant stopped counting (its API session was deleted); null while it holds. */
  grant_ended_at: string | null;
  state: ApprovalState;
  decision: ApprovalDecision | null;
  /** Who decided: `api_key`, `web_session:<id>`, or `system` when the service failed closed. */
  decided_by: string | null;
  created_at: string;
  /** Past it, a pending approval is denied (`approval_timeout_seconds`). */
  expires_at: string;
  decided_at: string | null;
}

export interface GrantQuery {
  sessionId: string;
  /** The run asking (null for a chat). */
  runId: string | null;
  kind: ApprovalKind;
  scope: string;
  stage: ApprovalGrantStage;
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
  /**
   * Whether an operator's `allow_session` covers this scope and stage of this kind in the session:
   * a grant limited to a run (`grant_run_id`) counts for that run only; an ended grant never.
   */
  granted(query: GrantQuery): Promise<boolean>;
  /** Ends every session grant of the session (it was deleted); returns how many. */
  endSessionGrants(sessionId: string, endedAt: string): Promise<number>;
  /** Every approval the run asked, decided or not, in the order asked; at most `limit`. */
  listByRun(runId: string, limit: number): Promise<ApprovalRecord[]>;
  /** Whether the run waits for a decision now. */
  runWaiting(runId: string): Promise<boolean>;
  /** Deletes closed approvals decided before `cutoff` (ISO 8601), in slices; returns how many. */
  pruneClosedBefore(cutoff: string, options?: { signal?: AbortSignal }): Promise<number>;
}
