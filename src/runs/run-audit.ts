import type { AuditSink } from '../storage/ports/audit.js';
import type { Logger } from '../log.js';
import type { RunRecord } from '../storage/ports/runs.js';

/** The audit event of a finished run (complete, error or cancelled). Never rejects: a failure is logged. */
export async function auditRunEnd(audit: AuditSink, log: Logger, record: RunRecord, requestId: string | undefined): Promise<void> {
  const summary = { run_id: record.run_id, resolved_provider: record.resolved_provider, tools_used: record.tools_used, cost: record.cost };
  const common = { category: 'agent', subsystem: 'agent', action: 'run', session_id: record.session_id, task_id: record.run_id, request_id: requestId };
  try {
    await audit.emit(
      record.status === 'complete'
        ? { ...common, event_type: 'agent.run.complete', result: 'allow', detail: summary }
        : {
            ...common,
            event_type: record.status === 'cancelled' ? 'agent.run.cancelled' : 'agent.run.error',
            result: 'error', severity: record.status === 'cancelled' ? 'info' : 'error',
            detail: { ...summary, status: record.status, error: record.error },
          },
      // Nothing waits on it: on PostgreSQL it shares the audit chain's next commit.
      { batched: true },
    );
  } catch (err) {
    log.error(`could not audit the end of run ${record.run_id}: ${(err as Error)?.message ?? String(err)}`, { request_id: requestId });
  }
}
