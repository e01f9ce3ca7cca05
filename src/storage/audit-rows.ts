import type { AuditEvent, ChainedAuditEvent } from '../audit/types.js';

/** A stored audit event as every backend keeps it: its detail as the JSON text that was hashed, and its chain links. */
export type StoredAuditRow = Omit<AuditEvent, 'detail'> & { detail: string; prev_hash: string; hash: string };

/** A stored row as the event it records (tests read rows this way too). */
export function rowToEvent(row: Omit<StoredAuditRow, 'prev_hash' | 'hash'>): AuditEvent {
  return {
    id: row.id,
    timestamp: row.timestamp,
    event_type: row.event_type,
    category: row.category,
    result: row.result,
    severity: row.severity,
    actor: row.actor,
    source: row.source,
    subsystem: row.subsystem,
    action: row.action,
    session_id: row.session_id,
    task_id: row.task_id,
    detail: JSON.parse(row.detail) as Record<string, unknown>,
  };
}

/** A stored row with its chain links, as the audit endpoint and exports return it. */
export function rowToChained(row: StoredAuditRow): ChainedAuditEvent {
  return { ...rowToEvent(row), prev_hash: row.prev_hash, hash: row.hash };
}
