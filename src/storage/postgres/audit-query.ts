import { facetsFrom } from '../ports/audit-facets.js';
import { auditText } from '../ports/audit-query.js';
import { AUDIT_FILTER_FIELDS, type AuditFacetField, type AuditPage, type AuditQuery, type AuditEvent } from '../ports/audit.js';
import { rowToChained, type StoredAuditRow } from '../shared/audit-rows.js';
import type { PgDatabase } from './database.js';

/** The columns an event is read back with (its chain links included). */
export const AUDIT_COLUMNS = `id, timestamp, event_type, category, result, severity, actor, source, subsystem, action, session_id,
  task_id, detail, prev_hash, hash`;

/** `text` as a LIKE pattern that matches it literally anywhere (`\` is LIKE's default escape). */
function containing(text: string): string {
  return `%${text.replace(/[\\%_]/g, '\\$&')}%`;
}

/** The WHERE clause of a query's filters and its parameters (numbered from $1). */
export function auditConditions(query: AuditQuery): { where: string; values: unknown[] } {
  const conditions: string[] = [];
  const values: unknown[] = [];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  for (const field of AUDIT_FILTER_FIELDS) {
    const value = query[field];
    if (value !== undefined) conditions.push(`${field} = ${param(value)}`);
  }
  if (query.since !== undefined) conditions.push(`timestamp >= ${param(query.since)}`);
  if (query.until !== undefined) conditions.push(`timestamp < ${param(query.until)}`);
  if (query.q !== undefined) {
    // The lower-cased forms the trigram indexes hold, each searched on its own so a match never
    // straddles the event type and the detail. PostgreSQL's lower() and JavaScript's toLowerCase()
    // agree except on a few letters whose lower case is two characters (İ).
    const pattern = param(containing(auditText(query.q)));
    conditions.push(`(lower(event_type) LIKE ${pattern} OR lower(detail) LIKE ${pattern})`);
  }
  return { where: conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`, values };
}

type FacetRow = Pick<AuditEvent, AuditFacetField> & { n: number };

/**
 * One page of an audit query on PostgreSQL, its exact total and its facets, read in one
 * REPEATABLE READ snapshot so the three agree while other replicas append. The total and the
 * facets are one GROUP BY over the matches (a few dozen groups: these fields are set by code);
 * the page is read newest first in chain order (`seq`, drawn under the chain lock as events are
 * linked): replicas' clocks disagree, so ordering by timestamp would list an event appended after
 * another before it (a page would not read in the order `audit verify` checks). Unfiltered, that is
 * the primary key read backwards; a filtered page sorts its matches (its filter's index finds them).
 */
export async function runAuditQuery(db: PgDatabase, query: AuditQuery): Promise<AuditPage> {
  const { where, values } = auditConditions(query);
  return db.transaction(async (tx) => {
    await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const { rows: groups } = await tx.query<FacetRow>(`SELECT category, result, severity, subsystem, count(*) AS n
      FROM audit_events ${where} GROUP BY category, result, severity, subsystem`, values);
    const total = groups.reduce((sum, group) => sum + group.n, 0);
    const page = query.offset >= total ? [] : (await tx.query<StoredAuditRow>(`SELECT ${AUDIT_COLUMNS} FROM audit_events ${where}
      ORDER BY seq DESC LIMIT $${values.length + 1} OFFSET $${values.length + 2}`, [...values, query.limit, query.offset])).rows;
    return {
      events: page.map(rowToChained),
      total,
      // Every match is counted here, however many: the total is always exact.
      total_is_estimate: false,
      has_more: query.offset + page.length < total,
      facets: facetsFrom(groups.map(({ n, ...fields }) => ({ fields, n }))),
    };
  });
}
