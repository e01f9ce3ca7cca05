import type { ApprovalRecord } from '../ports/approvals.js';

/** The columns of an approvals row, in the order both backends select them. */
export const APPROVAL_COLUMNS = `id, run_id, session_id, kind, request, request_hash, scope, grant_stage, grant_rule,
  session_grant_allowed, grant_run_id, grant_ended_at, state, decision, decided_by, created_at, expires_at, decided_at`;

/**
 * An approvals row is the record itself: every column is a text (or null) of the same name, but
 * `session_grant_allowed`, which SQLite stores as 0/1.
 */
export type ApprovalRow = Omit<ApprovalRecord, 'session_grant_allowed'> & { session_grant_allowed: boolean | number };

/** Rows as records, copying only the record's fields (a driver may add others). */
export function toApproval(row: ApprovalRow): ApprovalRecord {
  return {
    id: row.id, run_id: row.run_id, session_id: row.session_id, kind: row.kind, request: row.request,
    request_hash: row.request_hash, scope: row.scope, grant_stage: row.grant_stage, grant_rule: row.grant_rule,
    session_grant_allowed: row.session_grant_allowed === true || row.session_grant_allowed === 1,
    grant_run_id: row.grant_run_id, grant_ended_at: row.grant_ended_at, state: row.state, decision: row.decision,
    decided_by: row.decided_by, created_at: row.created_at, expires_at: row.expires_at, decided_at: row.decided_at,
  };
}
