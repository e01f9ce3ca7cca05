import type { Migration } from './types.js';

/**
 * What an `allow_session` decision covers, stored with the approval: the policy stage it overrides
 * (`host`, `rest`, `tool`) and the rule, whether a session grant is offered at all (never over an
 * explicit REST deny), the run a channel session's grant is limited to, and when the grant ended
 * (its session was deleted). Grants stored before this version named a bare host; they have no
 * stage and so match nothing: their sessions are asked again.
 */
export const approvalGrantsMigration: Migration = {
  version: 15,
  name: 'approval_grants',
  sql: `
    ALTER TABLE approvals ADD COLUMN grant_stage TEXT CHECK (grant_stage IN ('host', 'rest', 'tool'));
    ALTER TABLE approvals ADD COLUMN grant_rule TEXT;
    ALTER TABLE approvals ADD COLUMN session_grant_allowed INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE approvals ADD COLUMN grant_run_id TEXT;
    ALTER TABLE approvals ADD COLUMN grant_ended_at TEXT;
    DROP INDEX approvals_session;
    CREATE INDEX approvals_grants ON approvals (session_id, kind, scope, grant_stage)
      WHERE decision = 'allow_session' AND grant_ended_at IS NULL;
  `,
};
