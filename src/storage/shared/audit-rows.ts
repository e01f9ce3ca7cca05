import { ChainWalk } from '../ports/audit-chain.js';
import type { AuditEvent, ChainedAuditEvent, ChainVerdict } from '../ports/audit.js';

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

/**
 * The verdict of `AuditStore.verify` from the stored rows, oldest first in batches: every backend
 * reads its rows its own way and judges them here.
 */
export async function verifyStoredChain(batches: AsyncIterable<readonly (StoredAuditRow & { seq: number })[]>): Promise<ChainVerdict> {
  const walk = new ChainWalk();
  let first: (StoredAuditRow & { seq: number }) | undefined;
  for await (const rows of batches) {
    for (const row of rows) {
      first ??= row;
      let event: ChainedAuditEvent;
      try {
        event = rowToChained(row);
      } catch {
        return { ok: false, count: walk.count + 1, brokenAt: { seq: row.seq, id: row.id, reason: 'detail is not valid JSON' } };
      }
      const reason = walk.next(event);
      if (reason) return { ok: false, count: walk.count, brokenAt: { seq: row.seq, id: row.id, reason } };
    }
  }
  // Retention removed what came before the oldest kept event: a pruning record must vouch for it.
  if (first && !walk.startVouched) {
    return {
      ok: false, count: walk.count,
      brokenAt: { seq: first.seq, id: first.id, reason: 'events before the oldest kept one were removed without a pruning record' },
    };
  }
  return { ok: true, count: walk.count };
}
