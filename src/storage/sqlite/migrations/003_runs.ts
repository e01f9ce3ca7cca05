import type { Migration } from './types.js';

/**
 * Background runs and their event logs.
 *
 * - `seq` orders runs (newest first per session through `runs_session`) without parsing timestamps.
 * - `runs_unfinished` is a partial index: at start-up the service looks for runs a restart
 *   interrupted, and there are at most a few of them among many finished ones.
 * - `run_events` holds each run's SSE log (ids 1, 2, 3 … per run) as the exact one-line JSON sent on
 *   the wire, so a replay re-sends stored bytes and never re-serialises. WITHOUT ROWID keeps the
 *   rows clustered by (run_id, id): a replay is one range scan.
 * - `tools_used` is a JSON array of tool names; cost columns mirror the terminal event's `cost`.
 */
export const runsMigration: Migration = {
  version: 3,
  name: 'runs',
  sql: `
    CREATE TABLE runs (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      session_id TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('pending', 'running', 'complete', 'error', 'cancelled')),
      provider TEXT,
      resolved_provider TEXT,
      created_at TEXT NOT NULL,
      started_at TEXT,
      finished_at TEXT,
      response TEXT,
      error TEXT,
      tools_used TEXT NOT NULL DEFAULT '[]',
      prompt_tokens INTEGER NOT NULL DEFAULT 0,
      completion_tokens INTEGER NOT NULL DEFAULT 0,
      cost_usd REAL NOT NULL DEFAULT 0
    );
    CREATE INDEX runs_session ON runs (session_id, seq);
    CREATE INDEX runs_unfinished ON runs (status) WHERE status IN ('pending', 'running');

    CREATE TABLE run_events (
      run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
      id INTEGER NOT NULL,
      name TEXT NOT NULL,
      data TEXT NOT NULL,
      PRIMARY KEY (run_id, id)
    ) WITHOUT ROWID;
  `,
};
