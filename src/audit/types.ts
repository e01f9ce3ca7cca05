export type AuditResult = 'allow' | 'deny' | 'error';
export type AuditSeverity = 'info' | 'warning' | 'error';

/** What a caller hands to `audit.emit()`. Everything but the first three fields is optional. */
export interface AuditInput {
  event_type: string;
  category: string;
  result: AuditResult;
  severity?: AuditSeverity;
  actor?: string | null;
  source?: string | null;
  subsystem?: string | null;
  action?: string | null;
  session_id?: string | null;
  task_id?: string | null;
  detail?: Record<string, unknown>;
}

/** A stored event, as the audit endpoint returns it. */
export interface AuditEvent {
  id: string;
  timestamp: string;
  event_type: string;
  category: string;
  result: AuditResult;
  severity: AuditSeverity;
  actor: string | null;
  source: string | null;
  subsystem: string | null;
  action: string | null;
  session_id: string | null;
  task_id: string | null;
  detail: Record<string, unknown>;
}

/** The narrow interface every subsystem depends on to record what it did. */
export interface AuditSink {
  emit(input: AuditInput): AuditEvent;
}
