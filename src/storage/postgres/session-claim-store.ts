import type { SessionClaim, SessionClaimStore } from '../ports/sessions.js';
import type { PgDatabase, Queryable } from './database.js';
import { CLAIM_COLUMNS, TAKE_CLAIM } from './take-claim.js';
import { interruptRun } from './run-store.js';

/**
 * Session claims on PostgreSQL, shared by every replica: taking one is a single statement that
 * inserts the claim or takes over an expired one, so two replicas can never both hold a session.
 */
export class PgSessionClaimStore implements SessionClaimStore {
  constructor(private readonly db: PgDatabase, private readonly owner: string) {}

  /** One statement (`TAKE_CLAIM`): the claim, and the holds its earlier holders left freed with it. */
  async acquire(claim: Omit<SessionClaim, 'owner'>, now: string): Promise<boolean> {
    const { rowCount } = await this.db.query(`WITH ${TAKE_CLAIM('$1', '$2', '$3', '$4', '$5', '$6')}
      SELECT session_id FROM claim`, [claim.session_id, claim.holder_id, claim.kind, this.owner, claim.expires_at, now]);
    return rowCount === 1;
  }

  async release(sessionId: string, holderId: string): Promise<void> {
    await this.db.query('DELETE FROM session_claims WHERE session_id = $1 AND holder_id = $2', [sessionId, holderId]);
  }

  async renew(holderIds: string[], expiresAt: string): Promise<void> {
    if (holderIds.length === 0) return;
    await this.db.query('UPDATE session_claims SET expires_at = $1 WHERE owner = $2 AND holder_id = ANY($3)', [expiresAt, this.owner, holderIds]);
  }

  async holder(sessionId: string, now: string): Promise<SessionClaim | null> {
    const { rows } = await this.db.query<SessionClaim>(`SELECT ${CLAIM_COLUMNS} FROM session_claims WHERE session_id = $1 AND expires_at > $2`,
      [sessionId, now]);
    return rows[0] ?? null;
  }

  async releaseOwn(): Promise<void> {
    await this.db.query('DELETE FROM session_claims WHERE owner = $1', [this.owner]);
  }

  /**
   * Each claim is deleted and its run ended in one transaction; the row lock (SKIP LOCKED) makes
   * replicas reaping at the same moment take different claims. The same transaction gives back the
   * webhook messages the stopped replicas had claimed and not started, so they run elsewhere now
   * rather than when those claims end (30 s), and deletes the budget holds of the reaped sessions'
   * calls in flight (`CostStore.reserve`). Should such a replica only have been slow, a message
   * it also goes on to start is still run once: its run's id was fixed when it was accepted.
   */
  reapExpired(now: string, message: string, limit: number, spared: readonly string[] = []): Promise<SessionClaim[]> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<SessionClaim>(`DELETE FROM session_claims WHERE session_id IN (
          SELECT session_id FROM session_claims WHERE expires_at <= $1 AND owner <> $2 AND owner <> ALL($4::text[])
          ORDER BY expires_at LIMIT $3 FOR UPDATE SKIP LOCKED)
        RETURNING ${CLAIM_COLUMNS}`, [now, this.owner, limit, spared]);
      await endReaped(tx, rows, now, message, [...new Set(rows.map((claim) => claim.owner))]);
      return rows;
    });
  }

  async renewedBy(owner: string): Promise<string | null> {
    const { rows } = await this.db.query<{ latest: string | null }>('SELECT max(expires_at) AS latest FROM session_claims WHERE owner = $1', [owner]);
    return rows[0]?.latest ?? null;
  }

  /**
   * The same step as `reapExpired` for a replica judged stopped by its liveness key: only the claims
   * whose lease ends by `upTo` (what the judge saw unchanged), so a claim that replica took or renewed
   * after it was judged (it was alive after all, or restarted) is left to it.
   */
  reapOwner(owner: string, upTo: string | null, now: string, message: string, limit: number): Promise<SessionClaim[]> {
    if (owner === this.owner) return Promise.resolve([]);
    return this.db.transaction(async (tx) => {
      const { rows } = upTo === null ? { rows: [] as SessionClaim[] } : await tx.query<SessionClaim>(`DELETE FROM session_claims WHERE session_id IN (
          SELECT session_id FROM session_claims WHERE owner = $1 AND expires_at <= $2 ORDER BY expires_at LIMIT $3 FOR UPDATE SKIP LOCKED)
        RETURNING ${CLAIM_COLUMNS}`, [owner, upTo, limit]);
      await endReaped(tx, rows, now, message, [owner]);
      return rows;
    });
  }

  /**
   * Runs are created in the statement that takes their claim and free it in the statement that
   * ends them (or after it), so an unfinished run without a claim row is one whose replica's end,
   * or whose claim's release after a failed write, went wrong: nobody would ever end it otherwise.
   * Each is locked (SKIP LOCKED) and ended in one transaction, so replicas reaping at once end it once.
   */
  reapUnclaimed(now: string, message: string, limit: number): Promise<string[]> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ id: string }>(`SELECT id FROM runs r WHERE status IN ('pending', 'running')
          AND NOT EXISTS (SELECT 1 FROM session_claims c WHERE c.session_id = r.session_id AND c.holder_id = r.id)
        ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED`, [limit]);
      const ended: string[] = [];
      for (const row of rows) if (await interruptRun(tx, row.id, now, message)) ended.push(row.id);
      return ended;
    });
  }
}

/**
 * Ends the runs among the reaped claims' holders, deletes their sessions' budget holds and gives back
 * the waiting channel messages of the `stopped` owners, so they run elsewhere now rather than when
 * those claims end (30 s). Should such a replica only have been slow, a message it also goes on to
 * start is still run once: its run's id was fixed when it was accepted.
 */
async function endReaped(tx: Queryable, rows: SessionClaim[], now: string, message: string, stopped: string[]): Promise<void> {
  for (const claim of rows) {
    if (claim.kind === 'run') await interruptRun(tx, claim.holder_id, now, message);
  }
  // Only the work holding a session's claim makes calls on it, so the budget its session holds
  // is that dead work's: freed now, not when the holds expire (15 min), or the session's next
  // call would be refused for calls that will never be settled.
  if (rows.length > 0) await tx.query('DELETE FROM cost_holds WHERE session_id = ANY($1)', [rows.map((claim) => claim.session_id)]);
  if (stopped.length > 0) {
    await tx.query('UPDATE channel_inbox SET claimed_until = NULL WHERE claimed_by = ANY($1) AND waiting', [stopped]);
  }
}
