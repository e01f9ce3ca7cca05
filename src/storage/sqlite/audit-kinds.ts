import { facetsFrom } from '../ports/audit-facets.js';
import type { AuditEvent, AuditFacets, AuditQuery } from '../ports/audit.js';
import type { SqliteDatabase } from './database.js';

/** The five fields an event's kind stands for (migration 010). */
export type KindFields = Pick<AuditEvent, 'event_type' | 'category' | 'result' | 'severity' | 'subsystem'>;
const KIND_FIELDS = ['event_type', 'category', 'result', 'severity', 'subsystem'] as const;
/** The part of a query `AuditKinds.matching` reads. */
type KindFilter = Pick<AuditQuery, (typeof KIND_FIELDS)[number]>;

const keyOf = (fields: KindFields) =>
  JSON.stringify([fields.event_type, fields.category, fields.result, fields.severity, fields.subsystem]);

/**
 * The `audit_kinds` dictionary, held in memory (a few dozen rows: these fields are set by code).
 * A new kind is inserted by the write that first needs it, in that write's transaction; the caller
 * `forget`s it when that write fails and `reload`s when a commit fails, so the map never names a
 * kind the file does not have.
 */
export class AuditKinds {
  private byKey = new Map<string, number>();
  private byId = new Map<number, KindFields>();
  private readonly stmt;

  constructor(db: SqliteDatabase) {
    this.stmt = {
      all: db.prepare('SELECT kind, event_type, category, result, severity, subsystem FROM audit_kinds'),
      insert: db.prepare(`INSERT INTO audit_kinds (event_type, category, result, severity, subsystem)
        VALUES (@event_type, @category, @result, @severity, @subsystem) RETURNING kind`).pluck(),
    };
    this.reload();
  }

  reload(): void {
    this.byKey = new Map();
    this.byId = new Map();
    for (const row of this.stmt.all.all() as (KindFields & { kind: number })[]) {
      this.byKey.set(keyOf(row), row.kind);
      this.byId.set(row.kind, row);
    }
  }

  /** Inside a transaction: the event's kind, inserted when new (`created`). */
  kindOf(event: AuditEvent): { kind: number; created: boolean } {
    const key = keyOf(event);
    const known = this.byKey.get(key);
    if (known !== undefined) return { kind: known, created: false };
    const fields: KindFields = {
      event_type: event.event_type, category: event.category, result: event.result, severity: event.severity, subsystem: event.subsystem,
    };
    const kind = this.stmt.insert.get(fields) as number;
    this.byKey.set(key, kind);
    this.byId.set(kind, fields);
    return { kind, created: true };
  }

  /** Drops a kind whose insert is being rolled back. */
  forget(kind: number): void {
    const fields = this.byId.get(kind);
    if (!fields) return;
    this.byId.delete(kind);
    this.byKey.delete(keyOf(fields));
  }

  /**
   * The kinds a query's filters on the five fields allow; null when it filters on none of them
   * (every kind, no condition needed).
   */
  matching(query: KindFilter): number[] | null {
    const wanted = KIND_FIELDS.filter((field) => query[field] !== undefined);
    if (wanted.length === 0) return null;
    return [...this.byId].filter(([, fields]) => wanted.every((field) => fields[field] === query[field])).map(([kind]) => kind);
  }

  /** Facets from event counts per kind. */
  facets(counts: ReadonlyMap<number, number>): AuditFacets {
    return facetsFrom([...counts].map(([kind, n]) => ({ fields: this.fieldsOf(kind), n })));
  }

  /** A kind another connection may have added since the last load is looked up again once. */
  private fieldsOf(kind: number): KindFields {
    let fields = this.byId.get(kind);
    if (!fields) {
      this.reload();
      fields = this.byId.get(kind);
    }
    if (!fields) throw new Error(`audit event kind ${kind} is not in audit_kinds`);
    return fields;
  }
}
