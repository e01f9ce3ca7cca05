import type { ChainReport } from '../audit/chain-status.js';
import type { AuditStats } from '../storage/ports/audit.js';
import type { Check } from './types.js';

/** What the audit check looks at. */
export interface AuditHealth {
  stats: AuditStats;
  chain: ChainReport;
  /** `retention.audit_days` (0 = kept forever). */
  retentionDays: number;
  now: number;
}

const DAY_MS = 86_400_000;

/**
 * The audit log: its hash chain verified from the oldest kept event, how much it holds, and the
 * retention in force. Broken chain: error. Events older than the retention (plus the day between
 * two passes): warning, retention is not keeping up.
 */
export function auditCheck(health: AuditHealth): Check {
  const { stats, chain, retentionDays, now } = health;
  const held = stats.count === 0
    ? 'no events yet'
    : `${stats.count.toLocaleString('en')} events from ${stats.oldest} to ${stats.newest}`;
  const retention = retentionDays > 0
    ? `events older than ${retentionDays} days are pruned daily (each pruned range recorded as audit.pruned)`
    : 'events are kept forever (retention.audit_days: 0)';
  const { verdict, checkedAt } = chain;
  if (verdict && !verdict.ok) {
    return {
      name: 'audit', status: 'error',
      summary: `hash chain BROKEN at event #${verdict.brokenAt.seq} (${verdict.brokenAt.id}): ${verdict.brokenAt.reason}; ${held}`,
      remediation: 'the audit log was changed outside agentd: keep a copy of the database for investigation and compare it with an earlier export (agentd audit export) or a backup',
    };
  }
  const verified = verdict && checkedAt !== null
    ? `hash chain verified from the oldest kept event (${verdict.count.toLocaleString('en')} events, ${Math.round((now - checkedAt) / 1000)} s ago)`
    : 'hash chain being verified in the background';
  const summary = `${verified}; ${held}; ${retention}`;
  const oldest = stats.oldest === null ? null : Date.parse(stats.oldest);
  if (retentionDays > 0 && oldest !== null && now - oldest > (retentionDays + 1) * DAY_MS) {
    return {
      name: 'audit', status: 'warn', summary,
      remediation: `the oldest event is older than ${retentionDays} days: retention runs once a day while the service runs; keep it running, or check its log for retention errors`,
    };
  }
  return { name: 'audit', status: 'ok', summary };
}
