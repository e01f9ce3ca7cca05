import type { CostEntry, CostStore, CostTotals, SessionSpend } from '../../agent/stores.js';
import { removeInSlices } from '../slices.js';
import type { PgDatabase } from './database.js';

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

  async record(entry: CostEntry): Promise<void> {
    await this.db.query(RECORD, [
      entry.session_id, entry.run_id, entry.provider, entry.model, entry.prompt_tokens, entry.completion_tokens, entry.cost_usd, entry.timestamp,
    ]);
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

  async topSessions(limit: number): Promise<SessionSpend[]> {
    const { rows } = await this.db.query<SessionSpend>(`SELECT session_id, calls, prompt_tokens, completion_tokens, cost_usd, last_call_at
      FROM cost_sessions ORDER BY cost_usd DESC, last_call_at DESC LIMIT $1`, [limit]);
    return rows;
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
