import type { ApprovalClose, ApprovalRecord, ApprovalStore, GrantQuery } from '../ports/approvals.js';
import { stateOf } from '../ports/approvals.js';
import { APPROVAL_COLUMNS, toApproval, type ApprovalRow } from '../shared/approval-rows.js';
import { removeInSlices } from '../shared/slices.js';
import type { PgDatabase } from './database.js';

const CLOSE = 'UPDATE approvals SET state = $1, decision = $2, decided_by = $3, decided_at = $4';
const closeValues = (close: ApprovalClose) => [stateOf(close.decision), close.decision, close.decided_by, close.decided_at];

/**
 * Approvals on PostgreSQL, shared by the replicas: a decision is one conditional UPDATE, so the
 * first of two replicas deciding the same approval wins and the other sees it already closed.
 */
export class PgApprovalStore implements ApprovalStore {
  constructor(private readonly db: PgDatabase, private readonly owner: string) {}

  async create(r: ApprovalRecord): Promise<void> {
    await this.db.query(`INSERT INTO approvals (owner, ${APPROVAL_COLUMNS})
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)`, [
      this.owner, r.id, r.run_id, r.session_id, r.kind, r.request, r.request_hash, r.scope, r.grant_stage, r.grant_rule,
      r.session_grant_allowed, r.grant_run_id, r.grant_ended_at, r.state, r.decision, r.decided_by, r.created_at, r.expires_at, r.decided_at,
    ]);
  }

  async get(id: string): Promise<ApprovalRecord | null> {
    const { rows } = await this.db.query<ApprovalRow>(`SELECT ${APPROVAL_COLUMNS} FROM approvals WHERE id = $1`, [id]);
    return rows[0] ? toApproval(rows[0]) : null;
  }

  async closedAmong(ids: readonly string[]): Promise<ApprovalRecord[]> {
    const { rows } = await this.db.query<ApprovalRow>(`SELECT ${APPROVAL_COLUMNS} FROM approvals WHERE id = ANY($1) AND state <> 'pending'`, [ids]);
    return rows.map(toApproval);
  }

  async list(options: { pendingOnly: boolean; limit: number }): Promise<ApprovalRecord[]> {
    const where = options.pendingOnly ? `WHERE state = 'pending'` : '';
    const { rows } = await this.db.query<ApprovalRow>(`SELECT ${APPROVAL_COLUMNS} FROM approvals ${where} ORDER BY seq DESC LIMIT $1`, [options.limit]);
    return rows.map(toApproval);
  }

  async decide(id: string, close: ApprovalClose): Promise<ApprovalRecord | null> {
    const { rows } = await this.db.query<ApprovalRow>(`${CLOSE} WHERE id = $5 AND state = 'pending' RETURNING ${APPROVAL_COLUMNS}`,
      [...closeValues(close), id]);
    return rows[0] ? toApproval(rows[0]) : null;
  }

  async closeOwnPending(close: ApprovalClose): Promise<ApprovalRecord[]> {
    const { rows } = await this.db.query<ApprovalRow>(`${CLOSE} WHERE state = 'pending' AND owner = $5 RETURNING ${APPROVAL_COLUMNS}`,
      [...closeValues(close), this.owner]);
    return rows.map(toApproval);
  }

  async closeExpired(close: ApprovalClose, limit: number): Promise<ApprovalRecord[]> {
    // SKIP LOCKED: two replicas expiring at once each close different rows, never the same one twice.
    const { rows } = await this.db.query<ApprovalRow>(`${CLOSE} WHERE seq IN (SELECT seq FROM approvals
      WHERE state = 'pending' AND expires_at < $4 ORDER BY expires_at LIMIT $5 FOR UPDATE SKIP LOCKED)
      AND state = 'pending' RETURNING ${APPROVAL_COLUMNS}`, [...closeValues(close), limit]);
    return rows.map(toApproval);
  }

  async granted(q: GrantQuery): Promise<boolean> {
    const { rows } = await this.db.query(`SELECT 1 FROM approvals WHERE session_id = $1 AND kind = $2 AND scope = $3
      AND grant_stage = $4 AND decision = 'allow_session' AND session_grant_allowed AND grant_ended_at IS NULL
      AND (grant_run_id IS NULL OR grant_run_id = $5) LIMIT 1`, [q.sessionId, q.kind, q.scope, q.stage, q.runId]);
    return rows.length > 0;
  }

  async endSessionGrants(sessionId: string, endedAt: string): Promise<number> {
    const result = await this.db.query(`UPDATE approvals SET grant_ended_at = $1 WHERE session_id = $2 AND decision = 'allow_session'
      AND grant_ended_at IS NULL`, [endedAt, sessionId]);
    return result.rowCount ?? 0;
  }

  async listByRun(runId: string, limit: number): Promise<ApprovalRecord[]> {
    const { rows } = await this.db.query<ApprovalRow>(`SELECT ${APPROVAL_COLUMNS} FROM approvals WHERE run_id = $1 ORDER BY seq LIMIT $2`, [runId, limit]);
    return rows.map(toApproval);
  }

  async runWaiting(runId: string): Promise<boolean> {
    const { rows } = await this.db.query(`SELECT 1 FROM approvals WHERE run_id = $1 AND state = 'pending' LIMIT 1`, [runId]);
    return rows.length > 0;
  }

  pruneClosedBefore(cutoff: string, options: { signal?: AbortSignal } = {}): Promise<number> {
    return removeInSlices(
      async (limit) => (await this.db.query(`DELETE FROM approvals WHERE seq IN (
        SELECT seq FROM approvals WHERE decided_at IS NOT NULL AND decided_at < $1 ORDER BY decided_at LIMIT $2)`, [cutoff, limit])).rowCount ?? 0,
      { signal: options.signal, isOpen: () => this.db.open },
    );
  }
}
