import { describe, expect, it } from 'vitest';
import type { JobRecord } from '../storage/ports/jobs.js';
import { schedulerChecks } from './scheduler-checks.js';

const NOW = Date.parse('2026-01-10T00:00:00.000Z');
const job = (id: string, extra: Partial<JobRecord> = {}): JobRecord => ({
  id, name: `name ${id}`, description: null, schedule: 'every 1 minutes', task: 't', provider: null, active_hours: null, timezone: 'UTC',
  state: 'active', created_at: '2026-01-01T00:00:00.000Z', next_run_at: '2026-01-10T00:01:00.000Z', last_run_at: null, last_status: null,
  last_run_id: null, last_error: null, run_count: 0, skipped: 0, last_skipped_at: null, last_skip_reason: null, missed: 0, last_missed_at: null,
  ...extra,
});

describe('scheduler diagnostics', () => {
  it('says when there are no jobs', () => {
    expect(schedulerChecks({ jobs: [], firing: true, now: NOW })).toEqual([{ name: 'jobs', status: 'ok', summary: 'no scheduled jobs' }]);
  });

  it('counts the jobs and names the next fires, soonest first', () => {
    const jobs = [
      job('job_b', { next_run_at: '2026-01-10T00:05:00.000Z' }), job('job_a', { next_run_at: '2026-01-10T00:02:00.000Z' }),
      job('job_p', { state: 'paused', next_run_at: null }), job('job_c'), job('job_d', { next_run_at: '2026-01-11T00:00:00.000Z' }),
    ];
    expect(schedulerChecks({ jobs, firing: true, now: NOW })).toEqual([
      { name: 'jobs', status: 'ok', summary: '5 job(s): 4 active, 1 paused' },
      { name: 'next_fires', status: 'ok', summary: 'next: "name job_c" at 2026-01-10T00:01:00.000Z, "name job_a" at 2026-01-10T00:02:00.000Z, "name job_b" at 2026-01-10T00:05:00.000Z and 1 more' },
    ]);
    expect(schedulerChecks({ jobs, firing: null, now: NOW })[0]!.summary).toBe('5 job(s): 4 active, 1 paused (read from the database; the running service fires them)');
    expect(schedulerChecks({ jobs, firing: false, now: NOW })[0]).toMatchObject({ status: 'warn', remediation: 'jobs fire once the service listens (agentd serve)' });
  });

  it('warns about recent missed fires with a remediation, not about old ones', () => {
    const checks = schedulerChecks({
      jobs: [job('job_recent', { missed: 5, last_missed_at: '2026-01-09T12:00:00.000Z' }), job('job_old', { missed: 2, last_missed_at: '2025-12-01T00:00:00.000Z' })],
      firing: true, now: NOW,
    });
    expect(checks.filter((c) => c.status === 'warn')).toEqual([{
      name: 'missed:job_recent', status: 'warn',
      summary: 'job "name job_recent" (job_recent) missed 5 fire(s) in total, the last due at 2026-01-09T12:00:00.000Z; missed fires are not replayed',
      remediation: expect.stringMatching(/^agentd was not running \(or was stalled\) when they fell due: run it under a supervisor/),
    }]);
  });

  it('warns about jobs whose last fire failed or that skip for budget', () => {
    const checks = schedulerChecks({
      jobs: [
        job('job_err', { last_status: 'error', last_error: 'provider down', last_run_at: '2026-01-09T00:00:00.000Z' }),
        job('job_int', { last_status: 'interrupted', last_error: 'stopped' }),
        job('job_budget', { last_skip_reason: 'budget', last_skipped_at: '2026-01-09T23:00:00.000Z', last_run_at: '2026-01-09T22:00:00.000Z' }),
        // A run after the budget skip: the budget is no longer the story.
        job('job_ran', { last_skip_reason: 'budget', last_skipped_at: '2026-01-09T21:00:00.000Z', last_run_at: '2026-01-09T22:00:00.000Z', last_status: 'complete' }),
      ],
      firing: true, now: NOW,
    }).filter((c) => c.status === 'warn');
    expect(checks.map((c) => [c.name, c.summary])).toEqual([
      ['failing:job_err', 'the last fire of job "name job_err" (job_err) failed: provider down'],
      ['failing:job_int', 'the last fire of job "name job_int" (job_int) was interrupted: stopped'],
      ['budget:job_budget', 'job "name job_budget" (job_budget) is skipping its fires: its session job:job_budget has spent max_spend_usd'],
    ]);
    expect(checks[0]!.remediation).toBe('see GET /api/v1/runs?session_id=job:job_err; the next fire tries again at 2026-01-10T00:01:00.000Z');
    expect(checks[2]!.remediation).toMatch(/^raise max_spend_usd/);
  });

  it('names at most ten jobs per problem and counts the rest', () => {
    const jobs = Array.from({ length: 13 }, (_, i) => job(`job_${i}`, { last_status: 'error', last_error: 'x' }));
    const failing = schedulerChecks({ jobs, firing: true, now: NOW }).filter((c) => c.name.startsWith('failing:'));
    expect(failing).toHaveLength(11);
    expect(failing[10]).toMatchObject({ name: 'failing:more', summary: '3 more job(s) like these; see GET /api/v1/scheduler/jobs' });
  });
});
