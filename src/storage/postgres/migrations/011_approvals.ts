import type { PgMigration } from './types.js';

/**
 * Requests waiting for an operator's decision (`ApprovalStore`), shared by the replicas: a decision
 * taken on one reaches the run waiting on another. `owner` is the replica the run waits on; a
 * restarted replica denies its own pending approvals. Closed rows go with the runs' retention.
 */
export const approvalsMigration: PgMigration = {
  version: 11,
  name: 'approvals',
  sql: `
    CREATE TABLE approvals (
      seq bigserial PRIMARY KEY,
      id text NOT NULL UNIQUE,
      run_id text,
      session_id text NOT NULL,
      kind text NOT NULL CHECK (kind IN ('network', 'tool')),
      request text NOT NULL,
      request_hash text NOT NULL,
      scope text NOT NULL,
      owner text NOT NULL,
      state text NOT NULL CHECK (state IN ('pending', 'allowed', 'denied')),
      decision text CHECK (decision IN ('allow_once', 'allow_session', 'deny', 'timeout', 'interrupted', 'withdrawn')),
      decided_by text,
      created_at text COLLATE "C" NOT NULL,
      expires_at text COLLATE "C" NOT NULL,
      decided_at text COLLATE "C"
    );
    CREATE INDEX approvals_pending ON approvals (expires_at) WHERE state = 'pending';
    CREATE INDEX approvals_run ON approvals (run_id) WHERE state = 'pending';
    CREATE INDEX approvals_session ON approvals (session_id, kind, scope) WHERE decision = 'allow_session';
    CREATE INDEX approvals_decided ON approvals (decided_at) WHERE decided_at IS NOT NULL;
  `,
};
