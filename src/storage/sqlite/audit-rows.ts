import type { StoredAuditRow } from '../shared/audit-rows.js';

export { rowToChained, rowToEvent } from '../shared/audit-rows.js';

/** A row of `audit_events`: the stored event with its order and its kind (migration 010). */
export type AuditRow = StoredAuditRow & { seq: number; kind: number };
