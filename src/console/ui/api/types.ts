/**
 * Payloads of the API endpoints the console reads (docs/resources.md). Where the
 * service declares a payload's type in a module free of server code, that type is used (erased
 * from the bundle); the rest are declared here.
 */
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

/** A run record (GET /runs/{id}, docs/resources.md#runs). The trace fields are absent on services that do not record them. */
export interface RunRecord {
  run_id: string;
  session_id: string;
  message: string;
  status: string;
  provider: string | null;
  resolved_provider: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  response: string | null;
  error: string | null;
  tools_used: string[] | null;
  cost: Cost | null;
  source: string;
  job_id: string | null;
  model?: string | null;
  first_token_at?: string | null;
  trace?: RunTrace | null;
}

export interface RunTrace {
  steps?: TraceStep[];
  approvals?: TraceApproval[];
  timings?: Partial<Record<'queued_at' | 'started_at' | 'first_token_at' | 'finished_at', string | null> & Record<'queue_ms' | 'total_ms', number | null>>;
}

export interface TraceStep {
  call_id: string;
  tool: string;
  arguments: unknown;
  started_at?: string | null;
  finished_at?: string | null;
  duration_ms?: number | null;
  is_error?: boolean;
  result_preview?: string | null;
  result_truncated?: boolean;
  error?: string | null;
  approval?: { approval_id: string; status: string; decided_by?: string | null; decided_at?: string | null } | null;
}

export interface TraceApproval {
  approval_id: string;
  kind: string;
  subject: string;
  status: string;
  created_at: string;
  decided_at?: string | null;
  decided_by?: string | null;
}
