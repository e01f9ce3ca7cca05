import type { Database } from '../storage/database.js';

/** One provider call's usage and price, as stored. */
export interface CostEntry {
  session_id: string;
  run_id: string | null;
  provider: string;
  model: string;
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number;
  timestamp: string;
}

export interface SessionSpend {
  session_id: string;
  calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number;
  last_call_at: string;
}

export interface CostTotals {
  calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number;
  /** Sessions with at least one call. */
  sessions: number;
}

/** Spend per provider call and per session. Implemented on SQLite (`SqliteCostStore`). */
export interface CostStore {
  record(entry: CostEntry): void;
  /** Everything the session has spent, across restarts (the sum is by session id). */
  sessionSpend(sessionId: string): number;
  totals(): CostTotals;
  /** Sessions by spend, most first (ties: most recent call first). */
  topSessions(limit: number): SessionSpend[];
}

export class SqliteCostStore implements CostStore {
  private readonly stmt;

  constructor(database: Database) {
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
    };
  }

  record(entry: CostEntry): void {
    this.stmt.insert.run(entry);
  }

  sessionSpend(sessionId: string): number {
    return (this.stmt.spend.get(sessionId) as number | undefined) ?? 0;
  }

  totals(): CostTotals {
    return this.stmt.totals.get() as CostTotals;
  }

  topSessions(limit: number): SessionSpend[] {
    return this.stmt.top.all(limit) as SessionSpend[];
  }
}
