import { fitsBudget, type CostEntry, type CostStore, type CostTotals, type HourSpend, type SessionSpend, type SpendAnswer, type SpendRequest } from '../ports/costs.js';
import { hourRow, spendByHourSql } from '../shared/hourly.js';
import { newId } from '../../security/ids/tokens.js';
import { removeInSlices } from '../shared/slices.js';
import { COST_HOLD_LOCK_CLASS } from './locks.js';
import type { PgDatabase, Queryable } from './database.js';

/**
 * The call row and the session's sum in one statement: they commit together or not at all,
 * whichever replica records the call, and concurrent calls of one session add up (the upsert
 * takes the session row's lock).
 */
const RECORD = `
  WITH call AS (
    INSERT INTO costs (session_id, run_id, provider, model, prompt_tokens, completion_tokens, cost_usd, timestamp)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
    RETURNING session_id, prompt_tokens, completion_tokens, cost_usd, timestamp
  )
  INSERT INTO cost_sessions (session_id, calls, prompt_tokens, completion_tokens, cost_usd, last_call_at)
  SELECT session_id, 1, prompt_tokens, completion_tokens, cost_usd, timestamp FROM call
  ON CONFLICT (session_id) DO UPDATE SET
    calls = cost_sessions.calls + 1,
    prompt_tokens = cost_sessions.prompt_tokens + excluded.prompt_tokens,
    completion_tokens = cost_sessions.completion_tokens + excluded.completion_tokens,
    cost_usd = cost_sessions.cost_usd + excluded.cost_usd,
    last_call_at = greatest(cost_sessions.last_call_at, excluded.last_call_at)`;

/** Spend on PostgreSQL: one row per call and the per-session sums the budget check reads. */
export class PgCostStore implements CostStore {
  constructor(private readonly db: PgDatabase) {}

  record(entry: CostEntry): Promise<void> {
    return recordCost(this.db, entry);
  }

  async reserve(request: SpendRequest): Promise<SpendAnswer> {
    return this.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [COST_HOLD_LOCK_CLASS, request.session_id]);
      await tx.query('DELETE FROM cost_holds WHERE session_id = $1 AND expires_at <= $2', [request.session_id, request.now]);
      const { rows: [budget] } = await tx.query<{ spent: number; held: number }>(`SELECT
          coalesce((SELECT cost_usd FROM cost_sessions WHERE session_id = $1), 0)::double precision AS spent,
          coalesce((SELECT sum(amount_usd) FROM cost_holds WHERE session_id = $1 AND expires_at > $2), 0)::double precision AS held`,
      [request.session_id, request.now]);
      const { spent, held } = budget!;
      if (!fitsBudget(spent, held, request)) return { granted: false, spent_usd: spent, held_usd: held };
      const id = newId('hold');
      await tx.query('INSERT INTO cost_holds (id, session_id, amount_usd, expires_at) VALUES ($1, $2, $3, $4)',
        [id, request.session_id, request.amount_usd, request.expires_at]);
      return { granted: true, hold_id: id };
    });
  }

  async settle(holdId: string, entry: CostEntry | null): Promise<void> {
    await this.db.transaction(async (tx) => {
      if (entry) await recordCost(tx, entry);
      await tx.query('DELETE FROM cost_holds WHERE id = $1', [holdId]);
    });
  }

  async sessionSpend(sessionId: string): Promise<number> {
    const { rows } = await this.db.query<{ cost_usd: number }>('SELECT cost_usd FROM cost_sessions WHERE session_id = $1', [sessionId]);
    return rows[0]?.cost_usd ?? 0;
  }

  async totals(): Promise<CostTotals> {
    const { rows } = await this.db.query<CostTotals>(`SELECT coalesce(sum(calls), 0)::bigint AS calls,
      coalesce(sum(prompt_tokens), 0)::bigint AS prompt_tokens, coalesce(sum(completion_tokens), 0)::bigint AS completion_tokens,
      coalesce(sum(cost_usd), 0)::double precision AS cost_usd, count(*) AS sessions FROM cost_sessions`);
    return rows[0]!;
  }

  async topSessions(limit: number, offset = 0): Promise<SessionSpend[]> {
    const { rows } = await this.db.query<SessionSpend>(`SELECT session_id, calls, prompt_tokens, completion_tokens, cost_usd, last_call_at
      FROM cost_sessions ORDER BY cost_usd DESC, last_call_at DESC LIMIT $1 OFFSET $2`, [limit, offset]);
    return rows;
  }

  async spendByHour(since: string): Promise<HourSpend[]> {
    const { rows } = await this.db.query<HourSpend>(spendByHourSql('$1'), [since]);
    return rows.map((row) => hourRow(row, ['calls', 'cost_usd']));
  }

  async pruneBefore(cutoff: string, options: { signal?: AbortSignal } = {}): Promise<number> {
    const slices = { signal: options.signal, isOpen: () => this.db.open };
    const removed = await removeInSlices(async (limit) => (await this.db.query(`DELETE FROM costs WHERE seq IN (
        SELECT seq FROM costs WHERE timestamp < $1 ORDER BY timestamp LIMIT $2)`, [cutoff, limit])).rowCount ?? 0, slices);
    await removeInSlices(async (limit) => (await this.db.query(`DELETE FROM cost_sessions WHERE session_id IN (
        SELECT session_id FROM cost_sessions WHERE last_call_at < $1 ORDER BY last_call_at LIMIT $2)`, [cutoff, limit])).rowCount ?? 0, slices);
    return removed;
  }
}

/** The call's row and its session's sums (`RECORD`), on `db` (in a transaction: as part of its commit). */
export async function recordCost(db: Queryable, entry: CostEntry): Promise<void> {
  await db.query(RECORD, recordValues(entry));
}

const recordValues = (entry: CostEntry) => [
  entry.session_id, entry.run_id, entry.provider, entry.model, entry.prompt_tokens, entry.completion_tokens, entry.cost_usd, entry.timestamp,
];
