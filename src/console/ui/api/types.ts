/** Payloads of the API endpoints the console reads (decisions.md: REST API payloads). */

export interface Status {
  version: string;
  uptime_s: number;
  providers_available: string[];
  default_provider: string;
  tool_count: number;
  session_count: number;
  memory: { present: boolean; turn_count: number };
}

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

export interface ApiSession {
  id: string;
  name: string | null;
  provider: string;
  created_at: string;
  last_used_at: string;
  turn_count: number;
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

export interface Job {
  id: string;
  name: string;
  description: string | null;
  schedule: string;
  task: string;
  provider: string | null;
  active_hours: string | null;
  timezone: string;
  state: 'active' | 'paused';
  next_run_at: string | null;
  last_run_at: string | null;
  last_status: string | null;
  last_error: string | null;
  run_count: number;
  skipped: number;
  missed: number;
  last_missed_at: string | null;
}

export interface ControlTarget {
  target: string;
  label: string;
  state: string;
  available: boolean;
  confirm: string;
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

export type CheckStatus = 'ok' | 'warn' | 'error';

export interface Check {
  name: string;
  status: CheckStatus;
  summary: string;
  remediation?: string;
}

export interface Diagnostics {
  overall: CheckStatus;
  counts: Record<CheckStatus, number>;
  sections: { key: string; label: string; status: CheckStatus; checks: Check[] }[];
}

export interface AuditEvent {
  id: string;
  timestamp: string;
  event_type: string;
  category: string;
  result: 'allow' | 'deny' | 'error';
  severity: 'info' | 'warning' | 'error';
  actor: string | null;
  source: string | null;
  subsystem: string | null;
  action: string | null;
  session_id: string | null;
  task_id: string | null;
  detail: Record<string, unknown>;
  prev_hash: string;
  hash: string;
}

export type AuditFacetField = 'category' | 'result' | 'severity' | 'subsystem';

export interface AuditPage {
  events: AuditEvent[];
  total: number;
  has_more: boolean;
  facets: Record<AuditFacetField, { value: string | null; count: number }[]>;
}
