import type { PgMigration } from './types.js';

/**
 * What an `allow_session` decision covers, stored with the approval: the policy stage it overrides
 * (`host`, `rest`, `tool`) and the rule, whether a session grant is offered at all (never over an
 * explicit REST deny), the run a channel session's grant is limited to, and when the grant ended
 * (its session was deleted). Grants stored before this version named a bare host; they have no
 * stage and so match nothing: their sessions are asked again.
 */
export const approvalGrantsMigration: PgMigration = {
  version: 13,
  name: 'approval_grants',
  sql: `
    ALTER TABLE approvals ADD COLUMN grant_stage text CHECK (grant_stage IN ('host', 'rest', 'tool'));
    ALTER TABLE approvals ADD COLUMN grant_rule text;
    ALTER TABLE approvals ADD COLUMN session_grant_allowed boolean NOT NULL DEFAULT false;
    ALTER TABLE approvals ADD COLUMN grant_run_id text;
    ALTER TABLE approvals ADD COLUMN grant_ended_at text COLLATE "C";
    DROP INDEX approvals_session;
    CREATE INDEX approvals_grants ON approvals (session_id, kind, scope, grant_stage)
      WHERE decision = 'allow_session' AND grant_ended_at IS NULL;
  `,
};
