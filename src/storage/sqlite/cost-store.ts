import type { CostEntry, CostStore, CostTotals, SessionSpend } from '../../agent/stores.js';
import type { Database } from './database.js';
import { removeInSlices } from '../slices.js';
import type { SqliteUnitOfWork } from './unit-of-work.js';

/**
 * Spend on the service's SQLite file: one row per call, and `cost_sessions`, the per-session sums a
 * trigger keeps in step with every insert (see migration 004), which the budget check reads.
 */
export class SqliteCostStore implements CostStore {
  private readonly stmt;

  constructor(
    private readonly database: Database,
    private readonly uow: SqliteUnitOfWork,
  ) {
    const db = database.db;
    this.stmt = {
      insert: db.prepare(`INSERT INTO costs (session_id, run_id, provider, model, prompt_tokens, completion_tokens, cost_usd, timestamp)
        VALUES (@session_id, @run_id, @provider, @model, @prompt_tokens, @completion_tokens, @cost_usd, @timestamp)`),
      spend: db.prepare('SELECT cost_usd FROM cost_sessions WHERE session_id = ?').pluck(),
      totals: db.prepare(`SELECT coalesce(sum(calls), 0) AS calls, coalesce(sum(prompt_tokens), 0) AS prompt_tokens,
        coalesce(sum(completion_tokens), 0) AS completion_tokens, total(cost_usd) AS cost_usd, count(*) AS sessions
        FROM cost_sessions`),
      top: db.prepare(`SELECT session_id, calls, prompt_tokens, completion_tokens, cost_usd, last_call_at
        FROM cost_sessions ORDER BY cost_usd DESC, last_call_at DESC LIMIT ?`),
      pruneCalls: db.prepare(`DELETE FROM costs WHERE seq IN (
          SELECT seq FROM costs WHERE timestamp < ? ORDER BY timestamp LIMIT ?)`),
      pruneSessions: db.prepare(`DELETE FROM cost_sessions WHERE session_id IN (
          SELECT session_id FROM cost_sessions WHERE last_call_at < ? ORDER BY last_call_at LIMIT ?)`),
    };
  }

  async record(entry: CostEntry): Promise<void> {
    await this.uow.run(() => this.stmt.insert.run(entry));
  }

  async sessionSpend(sessionId: string): Promise<number> {
    return (this.stmt.spend.get(sessionId) as number | undefined) ?? 0;
  }

  async totals(): Promise<CostTotals> {
    return this.stmt.totals.get() as CostTotals;
  }

  async topSessions(limit: number): Promise<SessionSpend[]> {
    return this.stmt.top.all(limit) as SessionSpend[];
  }

  async pruneBefore(cutoff: string, options: { signal?: AbortSignal } = {}): Promise<number> {
    const slices = { signal: options.signal, isOpen: () => this.database.open };
    const removed = await removeInSlices((limit) => this.stmt.pruneCalls.run(cutoff, limit).changes, slices);
    await removeInSlices((limit) => this.stmt.pruneSessions.run(cutoff, limit).changes, slices);
    return removed;
  }
}
