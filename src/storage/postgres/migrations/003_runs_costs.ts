import type { PgMigration } from './types.js';

/**
 * Runs with their event logs, and spend.
 *
 * - `run_events` holds each run's SSE log (ids 1, 2, 3 … per run) as the exact one-line JSON sent
 *   on the wire, so a replay re-sends stored bytes.
 * - `runs_unfinished` is partial: at start-up the service looks for the few runs a dead process
 *   left behind among many finished ones; `runs_finished_age` serves retention.
 * - `cost_sessions` is the per-session sum the budget check reads before every provider call; the
 *   store writes it in the same statement as the call row, so the two never disagree.
 */
export const runsCostsMigration: PgMigration = {
  version: 3,
  name: 'runs_and_costs',
  sql: `
    CREATE TABLE runs (
      seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      id text NOT NULL UNIQUE,
      session_id text NOT NULL,
      message text NOT NULL DEFAULT '',
      status text NOT NULL CHECK (status IN ('pending', 'running', 'complete', 'error', 'cancelled')),
      provider text,
      resolved_provider text,
      created_at text COLLATE "C" NOT NULL,
      started_at text COLLATE "C",
      finished_at text COLLATE "C",
      response text,
      error text,
      tools_used text NOT NULL DEFAULT '[]',
      prompt_tokens bigint NOT NULL DEFAULT 0,
      completion_tokens bigint NOT NULL DEFAULT 0,
      cost_usd double precision NOT NULL DEFAULT 0
    );
    CREATE INDEX runs_session ON runs (session_id, seq);
    CREATE INDEX runs_unfinished ON runs (seq) WHERE status IN ('pending', 'running');
    CREATE INDEX runs_finished_age ON runs (finished_at) WHERE finished_at IS NOT NULL;

    CREATE TABLE run_events (
      run_id text NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
      id integer NOT NULL,
      name text NOT NULL,
      data text NOT NULL,
      PRIMARY KEY (run_id, id)
    );

    CREATE TABLE costs (
      seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      session_id text NOT NULL,
      run_id text,
      provider text NOT NULL,
      model text NOT NULL,
      prompt_tokens bigint NOT NULL CHECK (prompt_tokens >= 0),
      completion_tokens bigint NOT NULL CHECK (completion_tokens >= 0),
      cost_usd double precision NOT NULL CHECK (cost_usd >= 0),
      timestamp text COLLATE "C" NOT NULL
    );
    CREATE INDEX costs_age ON costs (timestamp);

    CREATE TABLE cost_sessions (
      session_id text PRIMARY KEY,
      calls bigint NOT NULL,
      prompt_tokens bigint NOT NULL,
      completion_tokens bigint NOT NULL,
      cost_usd double precision NOT NULL,
      last_call_at text COLLATE "C" NOT NULL
    );
    CREATE INDEX cost_sessions_age ON cost_sessions (last_call_at);
    CREATE INDEX cost_sessions_spend ON cost_sessions (cost_usd DESC, last_call_at DESC);
  `,
};
