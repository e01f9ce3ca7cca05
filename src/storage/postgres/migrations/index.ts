import { auditMigration } from './001_audit.js';
import { memoryMigration } from './002_memory.js';
import { runsCostsMigration } from './003_runs_costs.js';
import { inboxJobsSettingsMigration } from './004_inbox_jobs_settings.js';
import { apiSessionsMigration } from './005_api_sessions.js';
import { webSessionsMigration } from './006_web_sessions.js';
import { runOwnerMigration } from './007_run_owner.js';
import { inboxClaimsMigration } from './008_inbox_claims.js';
import { costHoldsMigration } from './009_cost_holds.js';
import { sessionClaimsMigration } from './010_session_claims.js';
import { approvalsMigration } from './011_approvals.js';
import { webhookReplayMigration } from './012_webhook_replay.js';
import { approvalGrantsMigration } from './013_approval_grants.js';
import { runSourceMigration } from './014_run_source.js';
import { runTraceMigration } from './015_run_trace.js';
import type { PgMigration } from './types.js';

export type { PgMigration } from './types.js';

/** Every PostgreSQL schema change, in version order. Add a file `NNN_name.ts` and one line here. */
export const PG_MIGRATIONS: readonly PgMigration[] = [auditMigration, memoryMigration, runsCostsMigration, inboxJobsSettingsMigration,
  apiSessionsMigration, webSessionsMigration, runOwnerMigration,
  inboxClaimsMigration, costHoldsMigration, sessionClaimsMigration, approvalsMigration, webhookReplayMigration, approvalGrantsMigration,
  runSourceMigration, runTraceMigration];
