import type { AuditInput, AuditSink } from '../storage/ports/audit.js';
import type { Logger } from '../log.js';
import { jobSessionId } from './types.js';
import { type FireEnd, type JobOrigin, type JobRecord, type SkipReason } from '../storage/ports/jobs.js';

type Job = Pick<JobRecord, 'id' | 'name'>;

/**
 * The scheduler's audit trail (`scheduler.job.*`): every fire, skip, miss and outcome, on the job's
 * session `job:<id>` with the job id as task id, so one filter shows a job's whole history.
 */
export class JobAudit {
  constructor(
    private readonly sink: AuditSink,
    private readonly log: Logger,
  ) {}

  created(job: JobRecord, origin: JobOrigin): Promise<void> {
    return this.emit(job, 'create', 'allow', 'info', {
      schedule: job.schedule, timezone: job.timezone, active_hours: job.active_hours, provider: job.provider,
      next_run_at: job.next_run_at, task_chars: job.task.length,
    }, origin);
  }

  fired(job: Job, runId: string, scheduledFor: string, provider: string | null): Promise<void> {
    return this.emit(job, 'fire', 'allow', 'info', { run_id: runId, scheduled_for: scheduledFor, provider });
  }

  skipped(job: Job, reason: SkipReason, scheduledFor: string, note: string | null): Promise<void> {
    // Outside active hours is the schedule working as configured; the other two need attention.
    return this.emit(job, 'skip', 'deny', reason === 'active_hours' ? 'info' : 'warning', { reason, scheduled_for: scheduledFor, note });
  }

  missed(job: Job, count: number, exact: boolean, lastMissedAt: string | null, nextRunAt: string | null): Promise<void> {
    return this.emit(job, 'missed', 'error', 'warning', { missed: count, at_least: !exact, last_missed_at: lastMissedAt, next_run_at: nextRunAt });
  }

  /** How a fire that was claimed ended: its run's end, or why it never got one. */
  ended(job: Job, runId: string, outcome: FireEnd): Promise<void> {
    switch (outcome.status) {
      case 'complete':
        return this.emit(job, 'complete', 'allow', 'info', { run_id: runId });
      case 'cancelled':
        return this.emit(job, 'cancelled', 'error', 'info', { run_id: runId });
      default:
        return this.emit(job, outcome.status, 'error', outcome.status === 'error' ? 'error' : 'warning', { run_id: runId, error: outcome.error });
    }
  }

  /** Never rejects: a fire must not fail because its audit event could not be stored (it is logged). */
  private async emit(
    job: Job, action: string, result: AuditInput['result'], severity: AuditInput['severity'], detail: Record<string, unknown>, origin: JobOrigin = {},
  ): Promise<void> {
    try {
      await this.sink.emit({
        event_type: `scheduler.job.${action}`, category: 'scheduler', result, severity, subsystem: 'scheduler', action,
        source: origin.source ?? null, actor: origin.actor ?? null, session_id: jobSessionId(job.id), task_id: job.id,
        detail: { job_id: job.id, job_name: job.name, ...detail }, request_id: origin.requestId,
      });
    } catch (error) {
      this.log.error(`could not audit scheduler.job.${action} of job ${job.id}: ${(error as Error)?.message ?? String(error)}`);
    }
  }
}
