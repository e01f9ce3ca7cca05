import { eventHash, GENESIS_HASH } from '../../audit/chain.js';
import { PRUNED_EVENT_TYPE, type AuditEvent, type AuditStore, type ChainVerdict, type PrunedRange } from '../../audit/types.js';
import type { Database } from './database.js';
import { removeInSlices } from './slices.js';
import type { SqliteUnitOfWork } from './unit-of-work.js';

/** A row of `audit_events`: the event with its order, its detail as JSON and its chain links. */
export type AuditRow = Omit<AuditEvent, 'detail'> & { seq: number; detail: string; prev_hash: string; hash: string };

/** A stored row as the event it records (tests read rows this way too). */
export function rowToEvent(row: AuditRow): AuditEvent {
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

/**
 * The audit log on the service's SQLite file. The chain head is the hash of the last event whose
 * insert succeeded in the current batch; a batch whose commit fails puts it back to the last
 * committed event, so an event that never reached the file is never linked to.
 */
export class SqliteAuditStore implements AuditStore {
  private head: string;
  private readonly stmt;

  constructor(
    private readonly database: Database,
    private readonly uow: SqliteUnitOfWork,
  ) {
    const db = database.db;
    this.stmt = {
      insert: db.prepare(`
        INSERT INTO audit_events (id, timestamp, event_type, category, result, severity, actor, source,
          subsystem, action, session_id, task_id, detail, prev_hash, hash)
        VALUES (@id, @timestamp, @event_type, @category, @result, @severity, @actor, @source,
          @subsystem, @action, @session_id, @task_id, @detail, @prev_hash, @hash)`),
      lastHash: db.prepare('SELECT hash FROM audit_events ORDER BY seq DESC LIMIT 1').pluck(),
      count: db.prepare('SELECT count(*) FROM audit_events').pluck(),
      all: db.prepare('SELECT * FROM audit_events ORDER BY seq'),
      oldest: db.prepare('SELECT seq, timestamp, hash FROM audit_events WHERE timestamp < ? ORDER BY seq LIMIT ?'),
      deleteThrough: db.prepare('DELETE FROM audit_events WHERE seq <= ?'),
    };
    this.head = this.committedHead();
    uow.onRollback(() => {
      this.head = this.committedHead();
    });
  }

  async append(event: AuditEvent): Promise<void> {
    await this.uow.run(() => this.insert(event));
  }

  async count(): Promise<number> {
    return this.stmt.count.get() as number;
  }

  async verify(): Promise<ChainVerdict> {
    let prev: string | null = null;
    let start = GENESIS_HASH;
    const anchors = new Set<string>();
    let count = 0;
    for (const row of this.stmt.all.iterate() as IterableIterator<AuditRow>) {
      count++;
      // Retention removed what came before: the first kept event names its predecessor, which a
      // later pruning record must vouch for (checked at the end).
      if (prev === null) start = prev = row.prev_hash;
      let reason: string | null = null;
      let event: AuditEvent | null = null;
      if (row.prev_hash !== prev) reason = 'prev_hash does not match the previous event (event removed or reordered)';
      else {
        try {
          event = rowToEvent(row);
        } catch {
          reason = 'detail is not valid JSON';
        }
        if (event && eventHash(prev, event) !== row.hash) reason = 'hash does not match the content (event modified)';
      }
      if (reason) return { ok: false, count, brokenAt: { seq: row.seq, id: row.id, reason } };
      if (event?.event_type === PRUNED_EVENT_TYPE && typeof event.detail.last_hash === 'string') anchors.add(event.detail.last_hash);
      prev = row.hash;
    }
    if (start !== GENESIS_HASH && !anchors.has(start)) {
      const first = this.stmt.all.get() as AuditRow;
      return {
        ok: false, count,
        brokenAt: { seq: first.seq, id: first.id, reason: 'events before the oldest kept one were removed without a pruning record' },
      };
    }
    return { ok: true, count };
  }

  async pruneBefore(cutoff: string, record: (range: PrunedRange) => AuditEvent, options: { signal?: AbortSignal } = {}): Promise<number> {
    const slice = this.database.db.transaction((limit: number) => {
      const rows = this.stmt.oldest.all(cutoff, limit) as { seq: number; timestamp: string; hash: string }[];
      const last = rows.at(-1);
      if (!last) return 0;
      this.stmt.deleteThrough.run(last.seq);
      this.insert(record({
        removed: rows.length, last_hash: last.hash, first_timestamp: rows[0]!.timestamp, last_timestamp: last.timestamp,
      }));
      return rows.length;
    });
    return removeInSlices((limit) => {
      try {
        return slice(limit);
      } catch (error) {
        this.head = this.committedHead();
        throw error;
      }
    }, { signal: options.signal, isOpen: () => this.database.open });
  }

  /** Inside a transaction: links the event to the head and stores it; the head moves only if the insert did. */
  private insert(event: AuditEvent): void {
    const hash = eventHash(this.head, event);
    this.stmt.insert.run({ ...event, detail: JSON.stringify(event.detail), prev_hash: this.head, hash });
    this.head = hash;
  }

  private committedHead(): string {
    return (this.stmt.lastHash.get() as string | undefined) ?? GENESIS_HASH;
  }
}
