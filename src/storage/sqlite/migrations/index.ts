import { auditMigration } from './001_audit.js';
import { memoryMigration } from './002_memory.js';
import { runsMigration } from './003_runs.js';
import { costsMigration } from './004_costs.js';
import { lifecycleMigration } from './005_lifecycle.js';
import { runMessageMigration } from './006_run_message.js';
import { channelInboxMigration } from './007_channel_inbox.js';
import { jobsMigration } from './008_jobs.js';
import { settingsMigration } from './009_settings.js';
import { auditBrowserMigration } from './010_audit_browser.js';
import { inboxClaimsMigration } from './011_inbox_claims.js';
import { costHoldsMigration } from './012_cost_holds.js';
import { approvalsMigration } from './013_approvals.js';
import { webhookReplayMigration } from './014_webhook_replay.js';
import { approvalGrantsMigration } from './015_approval_grants.js';
import { runSourceMigration } from './016_run_source.js';
import { runTraceMigration } from './017_run_trace.js';
import { webSessionsMigration } from './018_web_sessions.js';
import type { Migration } from './types.js';

export type { Migration } from './types.js';

/** Every schema change, in version order. Add a file `NNN_name.ts` and one line here. */
export const MIGRATIONS: readonly Migration[] = [auditMigration, memoryMigration, runsMigration, costsMigration, lifecycleMigration,
  runMessageMigration, channelInboxMigration, jobsMigration, settingsMigration, auditBrowserMigration,
  inboxClaimsMigration, costHoldsMigration, approvalsMigration, webhookReplayMigration, approvalGrantsMigration,
  runSourceMigration, runTraceMigration, webSessionsMigration];
