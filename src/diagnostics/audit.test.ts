import { describe, expect, it } from 'vitest';
import { auditCheck, type AuditHealth } from './audit.js';

const NOW = Date.parse('2026-02-01T00:00:00.000Z');
const health = (overrides: Partial<AuditHealth> = {}): AuditHealth => ({
  stats: { count: 1234, oldest: '2026-01-01T00:00:00.000Z', newest: '2026-01-31T23:00:00.000Z' },
  chain: { verdict: { ok: true, count: 1234 }, checkedAt: NOW - 30_000 },
  retentionDays: 365,
  now: NOW,
  ...overrides,
});

describe('auditCheck', () => {
  it('is ok with a verified chain, and says what the log holds and what retention keeps', () => {
    expect(auditCheck(health())).toEqual({
      name: 'audit', status: 'ok',
      summary: 'hash chain verified from the oldest kept event (1,234 events, 30 s ago); 1,234 events from 2026-01-01T00:00:00.000Z '
        + 'to 2026-01-31T23:00:00.000Z; events older than 365 days are pruned daily (each pruned range recorded as audit.pruned)',
    });
    expect(auditCheck(health({ retentionDays: 0, stats: { count: 0, oldest: null, newest: null } })).summary)
      .toContain('no events yet; events are kept forever (retention.audit_days: 0)');
  });

  it('is an error naming the first broken event, with what to do', () => {
    const check = auditCheck(health({
      chain: { verdict: { ok: false, count: 7, brokenAt: { seq: 7, id: 'evt_x', reason: 'hash does not match the content (event modified)' } }, checkedAt: NOW },
    }));
    expect(check).toMatchObject({ status: 'error', remediation: expect.stringContaining('agentd audit export') });
    expect(check.summary).toContain('hash chain BROKEN at event #7 (evt_x): hash does not match the content');
  });

  it('says so while the first verification runs', () => {
    expect(auditCheck(health({ chain: { verdict: null, checkedAt: null } }))).toMatchObject({
      status: 'ok', summary: expect.stringMatching(/^hash chain being verified in the background; 1,234 events/),
    });
  });

  it('warns when events older than the retention are still there', () => {
    expect(auditCheck(health({ retentionDays: 20 }))).toMatchObject({ status: 'warn', remediation: expect.stringContaining('older than 20 days') });
    expect(auditCheck(health({ retentionDays: 30 })).status).toBe('ok');
  });
});
