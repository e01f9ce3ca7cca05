import { fitsBudget, type CostEntry, type CostStore, type CostTotals, type HourSpend, type SessionSpend, type SpendAnswer, type SpendRequest } from '../ports/costs.js';
import { hourRow, spendByHourSql } from '../shared/hourly.js';
import { newId } from '../../security/ids/tokens.js';
import type { Database } from './database.js';
import { removeInSlices } from '../shared/slices.js';
import type { SqliteUnitOfWork } from './unit-of-work.js';

/**
 * Spend on the service's SQLite file: one row per call, and `cost_sessions`, the per-session sums a
 * trigger keeps in step with every insert (see migration 004), which the budget check reads; and the
 * holds of calls in flight (migration 011). One process owns the file (the home lock), so holds left
 * by a process that stopped are dropped when the next one opens it.
 */
export class SqliteCostStore implements CostStore {
  private readonly stmt;

  constructor(
    private readonly database: Database,
    private readonly uow: SqliteUnitOfWork,
  ) {
    const db = database.db;
    // Only when there are any: on an empty table the DELETE is still a commit, the start's only
    // write, and the first in a new WAL costs its header and two fsyncs before the service listens.
    if (!database.readonly && db.prepare('SELECT 1 FROM cost_holds LIMIT 1').get() !== undefined) db.prepare('DELETE FROM cost_holds').run();
    this.stmt = {
      held: db.prepare('SELECT total(amount_usd) FROM cost_holds WHERE session_id = ? AND expires_at > ?').pluck(),
      hold: db.prepare('INSERT INTO cost_holds (id, session_id, amount_usd, expires_at) VALUES (?, ?, ?, ?)'),
      dropExpired: db.prepare('DELETE FROM cost_holds WHERE session_id = ? AND expires_at <= ?'),
      release: db.prepare('DELETE FROM cost_holds WHERE id = ?'),
      insert: db.prepare(`INSERT INTO costs (session_id, run_id, provider, model, prompt_tokens, completion_tokens, cost_usd, timestamp)
        VALUES (@session_id, @run_id, @provider, @model, @prompt_tokens, @completion_tokens, @cost_usd, @timestamp)`),
      spend: db.prepare('SELECT cost_usd FROM cost_sessions WHERE session_id = ?').pluck(),
      totals: db.prepare(`SELECT coalesce(sum(calls), 0) AS calls, coalesce(sum(prompt_tokens), 0) AS prompt_tokens,
        coalesce(sum(completion_tokens), 0) AS completion_tokens, total(cost_usd) AS cost_usd, count(*) AS sessions
        FROM cost_sessions`),
      top: db.prepare(`SELECT session_id, calls, prompt_tokens, completion_tokens, cost_usd, last_call_at
        FROM cost_sessions ORDER BY cost_usd DESC, last_call_at DESC LIMIT ? OFFSET ?`),
      byHour: db.prepare(spendByHourSql('?')),
      pruneCalls: db.prepare(`DELETE FROM costs WHERE seq IN (
          SELECT seq FROM costs WHERE timestamp < ? ORDER BY timestamp LIMIT ?)`),
      pruneSessions: db.prepare(`DELETE FROM cost_sessions WHERE session_id IN (
          SELECT session_id FROM cost_sessions WHERE last_call_at < ? ORDER BY last_call_at LIMIT ?)`),
    };
  }

  async record(entry: CostEntry): Promise<void> {
    await this.uow.run(() => this.stmt.insert.run(entry));
  }

  async reserve(request: SpendRequest): Promise<SpendAnswer> {
    return this.uow.run(() => {
      this.stmt.dropExpired.run(request.session_id, request.now);
      const spent = (this.stmt.spend.get(request.session_id) as number | undefined) ?? 0;
      const held = this.stmt.held.get(request.session_id, request.now) as number;
      if (!fitsBudget(spent, held, request)) return { granted: false, spent_usd: spent, held_usd: held };
      const id = newId('hold');
      this.stmt.hold.run(id, request.session_id, request.amount_usd, request.expires_at);
      return { granted: true, hold_id: id };
    });
  }

  async settle(holdId: string, entry: CostEntry | null): Promise<void> {
    await this.uow.run(() => {
      if (entry) this.stmt.insert.run(entry);
      this.stmt.release.run(holdId);
    });
  }

  async sessionSpend(sessionId: string): Promise<number> {
    return (this.stmt.spend.get(sessionId) as number | undefined) ?? 0;
  }

  async totals(): Promise<CostTotals> {
    return this.stmt.totals.get() as CostTotals;
  }

  async topSessions(limit: number, offset = 0): Promise<SessionSpend[]> {
    return this.stmt.top.all(limit, offset) as SessionSpend[];
  }

  async spendByHour(since: string): Promise<HourSpend[]> {
    return (this.stmt.byHour.all(since) as HourSpend[]).map((row) => hourRow(row, ['calls', 'cost_usd']));
  }

  async pruneBefore(cutoff: string, options: { signal?: AbortSignal } = {}): Promise<number> {
    const slices = { signal: options.signal, isOpen: () => this.database.open };
    const removed = await removeInSlices((limit) => this.stmt.pruneCalls.run(cutoff, limit).changes, slices);
    await removeInSlices((limit) => this.stmt.pruneSessions.run(cutoff, limit).changes, slices);
    return removed;
  }
}
