import type { ApprovalRecord } from '../approvals/types.js';

/** The columns of an approvals row, in the order both backends select them. */
export const APPROVAL_COLUMNS = `id, run_id, session_id, kind, request, request_hash, scope, state, decision, decided_by,
  created_at, expires_at, decided_at`;

/** An approvals row is the record itself: every column is a text (or null) of the same name. */
export type ApprovalRow = ApprovalRecord;

/** Rows as records, copying only the record's fields (a driver may add others). */
export function toApproval(row: ApprovalRow): ApprovalRecord {
  return {
    id: row.id, run_id: row.run_id, session_id: row.session_id, kind: row.kind, request: row.request,
    request_hash: row.request_hash, scope: row.scope, state: row.state, decision: row.decision,
    decided_by: row.decided_by, created_at: row.created_at, expires_at: row.expires_at, decided_at: row.decided_at,
  };
}
