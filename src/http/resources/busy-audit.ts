import type { FastifyRequest } from 'fastify';
import { AgentError } from '../../contracts/agent-errors.js';
import type { AuditSink } from '../../storage/ports/audit.js';

/** The audit trail of refused starts (docs/decisions.md#one-run-per-session): `web.run` deny (and `web.chat` deny for chats). */
export async function auditBusy(
  audit: AuditSink,
  err: unknown,
  request: Pick<FastifyRequest, 'clientAddress' | 'id'>,
  sessionId: string | null,
  kind: 'run' | 'chat',
): Promise<void> {
  if (!(err instanceof AgentError) || err.code !== 'session_busy') return;
  await audit.emit({
    event_type: kind === 'run' ? 'web.run' : 'web.chat', category: 'web', result: 'deny', subsystem: 'agent',
    action: kind, source: request.clientAddress || null, session_id: sessionId, detail: { reason: 'a run is already in flight on the session' },
    request_id: request.id,
  });
}
