import { createHash } from 'node:crypto';
import type { AuditEvent } from './types.js';

export const GENESIS_HASH = '0'.repeat(64);

/**
 * Hash of one event linked to its predecessor. The field order is fixed here, not taken from
 * object iteration, so the same event always hashes the same way.
 */
export function eventHash(prevHash: string, event: AuditEvent): string {
  const canonical = JSON.stringify([
    prevHash, event.id, event.timestamp, event.event_type, event.category, event.result, event.severity,
    event.actor, event.source, event.subsystem, event.action, event.session_id, event.task_id,
    JSON.stringify(event.detail),
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}
