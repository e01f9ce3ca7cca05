import type { Migration } from './types.js';

/**
 * Requests waiting for an operator's decision (`ApprovalStore`). A row stays after it is decided,
 * so that `allow_session` holds for the rest of the session and the decision can be looked up;
 * closed rows are removed with the runs (`retention.runs_days`).
 */
export const approvalsMigration: Migration = {
  version: 13,
  name: 'approvals',
  sql: `
    CREATE TABLE approvals (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      run_id TEXT,
      session_id TEXT NOT NULL,
      kind TEXT NOT NULL CHECK (kind IN ('network', 'tool')),
      request TEXT NOT NULL,
      request_hash TEXT NOT NULL,
      scope TEXT NOT NULL,
      owner TEXT NOT NULL,
      state TEXT NOT NULL CHECK (state IN ('pending', 'allowed', 'denied')),
      decision TEXT CHECK (decision IN ('allow_once', 'allow_session', 'deny', 'timeout', 'interrupted', 'withdrawn')),
      decided_by TEXT,
      created_at TEXT NOT NULL,
      expires_at TEXT NOT NULL,
      decided_at TEXT
    );
    CREATE INDEX approvals_pending ON approvals (expires_at) WHERE state = 'pending';
    CREATE INDEX approvals_run ON approvals (run_id) WHERE state = 'pending';
    CREATE INDEX approvals_session ON approvals (session_id, kind, scope) WHERE decision = 'allow_session';
    CREATE INDEX approvals_decided ON approvals (decided_at) WHERE decided_at IS NOT NULL;
  `,
};
