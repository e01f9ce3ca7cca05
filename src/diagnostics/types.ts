export type CheckStatus = 'ok' | 'warn' | 'error';

export interface Check {
  name: string;
  status: CheckStatus;
  summary: string;
  /** What the operator can do about a warn or error. */
  remediation?: string;
  /** Longer text to review, shown as is (a pending MCP manifest change as a diff). */
  detail?: string;
}

export interface Section {
  key: SectionKey;
  label: string;
  status: CheckStatus;
  checks: Check[];
}

export const SECTION_KEYS = ['web', 'providers', 'tools', 'memory', 'policy', 'gateway', 'discord', 'scheduler', 'runtime'] as const;
export type SectionKey = (typeof SECTION_KEYS)[number];

export interface DiagnosticsReport {
  overall: CheckStatus;
  counts: Record<CheckStatus, number>;
  sections: Section[];
}
