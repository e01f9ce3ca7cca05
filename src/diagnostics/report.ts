import type { Check, CheckStatus, DiagnosticsReport, Section, SectionKey } from './types.js';
import { SECTION_KEYS } from './types.js';

const RANK: Record<CheckStatus, number> = { ok: 0, warn: 1, error: 2 };

export function worst(statuses: CheckStatus[]): CheckStatus {
  return statuses.reduce<CheckStatus>((w, s) => (RANK[s] > RANK[w] ? s : w), 'ok');
}

const LABELS: Record<SectionKey, string> = {
  web: 'Web entrypoint',
  providers: 'Providers',
  tools: 'Tools',
  memory: 'Memory',
  policy: 'Network policy',
  gateway: 'Outbound gateway',
  discord: 'Discord',
  scheduler: 'Scheduler',
  runtime: 'Runtime',
};

/** Assemble sections (always all nine, in the documented order) into the report. */
export function buildReport(checks: Partial<Record<SectionKey, Check[]>>): DiagnosticsReport {
  const sections: Section[] = SECTION_KEYS.map((key) => {
    const list = checks[key] ?? [];
    return { key, label: LABELS[key], status: worst(list.map((c) => c.status)), checks: list };
  });
  const counts: Record<CheckStatus, number> = { ok: 0, warn: 0, error: 0 };
  for (const section of sections) for (const check of section.checks) counts[check.status]++;
  return { overall: worst(sections.map((s) => s.status)), counts, sections };
}
