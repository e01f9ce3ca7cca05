/**
 * Payloads of the API endpoints the console reads (docs/resources.md). Where the
 * service declares a payload's type in a module free of server code, that type is used (erased
 * from the bundle); the run record comes from the OpenAPI document's generated types; the rest are
 * declared here.
 */
import type { operations } from '../../../client/openapi-types.js';

export type { ApiSession } from '../../../storage/ports/sessions.js';
export type { ApprovalRecord as Approval, OperatorDecision } from '../../../storage/ports/approvals.js';
export type { ChainedAuditEvent as AuditEvent, AuditFacetField, AuditPage } from '../../../storage/ports/audit.js';
export type { Check, CheckStatus, DiagnosticsReport as Diagnostics } from '../../../diagnostics/types.js';
export type { StatusSnapshot as Status } from '../../../http/resources/status-snapshot.js';
export type { Overview } from '../../../http/resources/overview/overview.js';
export type { JobRecord as Job, JobPage, JobSummary, NextFire } from '../../../storage/ports/jobs.js';

export interface Provider {
  name: string;
  model: string;
  available: boolean;
  is_default: boolean;
}

export interface Tool {
  name: string;
  description: string;
  schema: unknown;
}

export interface Turn {
  id: string;
  session_id: string;
  role: string;
  content: string;
  provider: string | null;
  timestamp: string;
  pinned: boolean;
  /** Search results only. */
  preview?: string;
}

export interface Cost {
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number;
}

export interface StartedRun {
  run_id: string;
  session_id: string;
  status: string;
}

export interface ControlTarget {
  target: string;
  label: string;
  state: string;
  available: boolean;
  confirm: string;
  /** What to review before applying (a pending MCP manifest change as a diff). */
  detail?: string;
}

export interface Control {
  id: string;
  label: string;
  description: string;
  destructive: boolean;
  confirm_template: string;
  targets: ControlTarget[];
}

export interface ControlResult {
  control: string;
  target: string;
  previous: string;
  current: string;
}

export interface CostSummary {
  totals: { calls: number; prompt_tokens: number; completion_tokens: number; cost_usd: number; sessions: number };
  sessions: { session_id: string; calls: number; prompt_tokens: number; completion_tokens: number; cost_usd: number; last_call_at: string }[];
  max_spend_usd: number;
}

export type { RunRecord as Run, RunPage } from '../../../storage/ports/runs.js';

/** `GET /runs/hourly` (docs/resources.md#hourly-counts). */
export interface HourlyRuns {
  since: string;
  hours: { hour: string; status: string; runs: number }[];
}

/** `GET /costs/hourly` (docs/resources.md#hourly-counts). */
export interface HourlySpend {
  since: string;
  hours: { hour: string; provider: string; model: string; calls: number; cost_usd: number }[];
}

/** A run record with its trace (GET /runs/{id}, docs/resources.md#runs), as the OpenAPI document declares it. */
export type RunRecord = operations['getRun']['responses'][200]['content']['application/json']['data'];
export type RunTrace = NonNullable<RunRecord['trace']>;
export type TraceStep = RunTrace['steps'][number];
export type TraceApproval = RunTrace['approvals'][number];
