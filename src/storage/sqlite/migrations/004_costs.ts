import type { Migration } from './types.js';

/**
 * One row per provider call, and a per-session aggregate kept in step by a trigger.
 *
 * The budget check runs before every provider call and reads one session's spend; the cost summary
 * ranks sessions by spend. Both read `cost_sessions` (a primary-key lookup, and a scan of one row
 * per session) instead of summing every call. The trigger makes the call row and the aggregate one
 * statement, hence one transaction: they can never disagree, whoever inserts.
 */
export const costsMigration: Migration = {
  version: 4,
  name: 'costs',
  sql: `
    CREATE TABLE costs (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      session_id TEXT NOT NULL,
      run_id TEXT,
      provider TEXT NOT NULL,
      model TEXT NOT NULL,
      prompt_tokens INTEGER NOT NULL CHECK (prompt_tokens >= 0),
      completion_tokens INTEGER NOT NULL CHECK (completion_tokens >= 0),
      cost_usd REAL NOT NULL CHECK (cost_usd >= 0),
      timestamp TEXT NOT NULL
    );
    CREATE INDEX costs_session ON costs (session_id, seq);

    CREATE TABLE cost_sessions (
      session_id TEXT PRIMARY KEY,
      calls INTEGER NOT NULL,
      prompt_tokens INTEGER NOT NULL,
      completion_tokens INTEGER NOT NULL,
      cost_usd REAL NOT NULL,
      last_call_at TEXT NOT NULL
    ) WITHOUT ROWID;

    CREATE TRIGGER costs_aggregate AFTER INSERT ON costs BEGIN
      INSERT INTO cost_sessions (session_id, calls, prompt_tokens, completion_tokens, cost_usd, last_call_at)
        VALUES (new.session_id, 1, new.prompt_tokens, new.completion_tokens, new.cost_usd, new.timestamp)
      ON CONFLICT (session_id) DO UPDATE SET
        calls = calls + 1,
        prompt_tokens = prompt_tokens + excluded.prompt_tokens,
        completion_tokens = completion_tokens + excluded.completion_tokens,
        cost_usd = cost_usd + excluded.cost_usd,
        last_call_at = max(last_call_at, excluded.last_call_at);
    END;
  `,
};
