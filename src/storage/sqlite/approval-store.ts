import type { ApprovalClose, ApprovalRecord, ApprovalStore, GrantQuery } from '../ports/approvals.js';
import { stateOf } from '../ports/approvals.js';
import { APPROVAL_COLUMNS, toApproval, type ApprovalRow } from '../shared/approval-rows.js';
import { removeInSlices } from '../shared/slices.js';
import type { Database } from './database.js';
import type { SqliteUnitOfWork } from './unit-of-work.js';

/** Approvals on the service's SQLite file; writes go through the unit of work. */
export class SqliteApprovalStore implements ApprovalStore {
  private readonly stmt;

  constructor(
    private readonly database: Database,
    private readonly uow: SqliteUnitOfWork,
    private readonly owner: string,
  ) {
    const db = database.db;
    const close = `UPDATE approvals SET state = @state, decision = @decision, decided_by = @decided_by, decided_at = @decided_at`;
    this.stmt = {
      insert: db.prepare(`INSERT INTO approvals (owner, ${APPROVAL_COLUMNS}) VALUES (@owner, @id, @run_id, @session_id, @kind,
        @request, @request_hash, @scope, @grant_stage, @grant_rule, @session_grant_allowed, @grant_run_id, @grant_ended_at,
        @state, @decision, @decided_by, @created_at, @expires_at, @decided_at)`),
      get: db.prepare(`SELECT ${APPROVAL_COLUMNS} FROM approvals WHERE id = ?`),
      closedAmong: db.prepare(`SELECT ${APPROVAL_COLUMNS} FROM approvals WHERE id IN (SELECT value FROM json_each(?)) AND state <> 'pending'`),
      listAll: db.prepare(`SELECT ${APPROVAL_COLUMNS} FROM approvals ORDER BY seq DESC LIMIT ?`),
      listPending: db.prepare(`SELECT ${APPROVAL_COLUMNS} FROM approvals WHERE state = 'pending' ORDER BY seq DESC LIMIT ?`),
      decide: db.prepare(`${close} WHERE id = @id AND state = 'pending' RETURNING ${APPROVAL_COLUMNS}`),
      closeOwn: db.prepare(`${close} WHERE state = 'pending' AND owner = @owner RETURNING ${APPROVAL_COLUMNS}`),
      closeExpired: db.prepare(`${close} WHERE id IN (SELECT id FROM approvals WHERE state = 'pending' AND expires_at < @decided_at
        ORDER BY expires_at LIMIT @limit) RETURNING ${APPROVAL_COLUMNS}`),
      granted: db.prepare(`SELECT 1 FROM approvals WHERE session_id = @sessionId AND kind = @kind AND scope = @scope
        AND grant_stage = @stage AND decision = 'allow_session' AND session_grant_allowed = 1 AND grant_ended_at IS NULL
        AND (grant_run_id IS NULL OR grant_run_id = @runId) LIMIT 1`).pluck(),
      endGrants: db.prepare(`UPDATE approvals SET grant_ended_at = ? WHERE session_id = ? AND decision = 'allow_session'
        AND grant_ended_at IS NULL`),
      byRun: db.prepare(`SELECT ${APPROVAL_COLUMNS} FROM approvals WHERE run_id = ? ORDER BY seq LIMIT ?`),
      waiting: db.prepare(`SELECT 1 FROM approvals WHERE run_id = ? AND state = 'pending' LIMIT 1`).pluck(),
      pruneBatch: db.prepare(`DELETE FROM approvals WHERE seq IN (
        SELECT seq FROM approvals WHERE decided_at IS NOT NULL AND decided_at < ? ORDER BY decided_at LIMIT ?)`),
    };
  }

  async create(record: ApprovalRecord): Promise<void> {
    await this.uow.run(() => this.stmt.insert.run({ ...record, session_grant_allowed: record.session_grant_allowed ? 1 : 0, owner: this.owner }));
  }

  async get(id: string): Promise<ApprovalRecord | null> {
    const row = this.stmt.get.get(id) as ApprovalRow | undefined;
    return row ? toApproval(row) : null;
  }

  async closedAmong(ids: readonly string[]): Promise<ApprovalRecord[]> {
    return (this.stmt.closedAmong.all(JSON.stringify(ids)) as ApprovalRow[]).map(toApproval);
  }

  async list(options: { pendingOnly: boolean; limit: number }): Promise<ApprovalRecord[]> {
    const rows = (options.pendingOnly ? this.stmt.listPending : this.stmt.listAll).all(options.limit) as ApprovalRow[];
    return rows.map(toApproval);
  }

  decide(id: string, close: ApprovalClose): Promise<ApprovalRecord | null> {
    return this.uow.run(() => {
      const row = this.stmt.decide.get({ id, state: stateOf(close.decision), ...close }) as ApprovalRow | undefined;
      return row ? toApproval(row) : null;
    });
  }

  closeOwnPending(close: ApprovalClose): Promise<ApprovalRecord[]> {
    return this.uow.run(() =>
      (this.stmt.closeOwn.all({ owner: this.owner, state: stateOf(close.decision), ...close }) as ApprovalRow[]).map(toApproval));
  }

  closeExpired(close: ApprovalClose, limit: number): Promise<ApprovalRecord[]> {
    return this.uow.run(() =>
      (this.stmt.closeExpired.all({ limit, state: stateOf(close.decision), ...close }) as ApprovalRow[]).map(toApproval));
  }

  async granted(query: GrantQuery): Promise<boolean> {
    return this.stmt.granted.get({ ...query }) !== undefined;
  }

  endSessionGrants(sessionId: string, endedAt: string): Promise<number> {
    return this.uow.run(() => this.stmt.endGrants.run(endedAt, sessionId).changes);
  }

  async listByRun(runId: string, limit: number): Promise<ApprovalRecord[]> {
    return (this.stmt.byRun.all(runId, limit) as ApprovalRow[]).map(toApproval);
  }

  async runWaiting(runId: string): Promise<boolean> {
    return this.stmt.waiting.get(runId) !== undefined;
  }

  pruneClosedBefore(cutoff: string, options: { signal?: AbortSignal } = {}): Promise<number> {
    return removeInSlices(
      (limit) => this.stmt.pruneBatch.run(cutoff, limit).changes,
      { signal: options.signal, isOpen: () => this.database.open },
    );
  }
}
