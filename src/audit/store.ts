import type { Database } from '../storage/database.js';
import { redact } from '../security/redact.js';
import { newId } from '../security/tokens.js';
import { eventHash, GENESIS_HASH } from './chain.js';
import type { AuditEvent, AuditInput, AuditSink } from './types.js';

interface AuditRow {
  seq: number;
  id: string;
  timestamp: string;
  event_type: string;
  category: string;
  result: AuditEvent['result'];
  severity: AuditEvent['severity'];
  actor: string | null;
  source: string | null;
  subsystem: string | null;
  action: string | null;
  session_id: string | null;
  task_id: string | null;
  detail: string;
  prev_hash: string;
  hash: string;
}

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

const DEFAULT_SEVERITY = { allow: 'info', deny: 'warning', error: 'error' } as const;

function optionalText(value: string | null | undefined): string | null {
  return value === undefined || value === null ? null : String(redact(value));
}

/**
 * Append-only audit log in SQLite. Every event is redacted before it is written (so no secret
 * ever reaches the file) and hash-chained to the previous one. `emit` returns after the insert has
 * committed.
 */
export class AuditLog implements AuditSink {
  private lastHash: string;
  private readonly insert;

  constructor(private readonly database: Database, private readonly now: () => number = Date.now) {
    const last = database.db.prepare('SELECT hash FROM audit_events ORDER BY seq DESC LIMIT 1').get() as
      | { hash: string }
      | undefined;
    this.lastHash = last?.hash ?? GENESIS_HASH;
    this.insert = database.db.prepare(`
      INSERT INTO audit_events (id, timestamp, event_type, category, result, severity, actor, source,
        subsystem, action, session_id, task_id, detail, prev_hash, hash)
      VALUES (@id, @timestamp, @event_type, @category, @result, @severity, @actor, @source,
        @subsystem, @action, @session_id, @task_id, @detail, @prev_hash, @hash)`);
  }

  emit(input: AuditInput): AuditEvent {
    const event: AuditEvent = {
      id: newId('evt'),
      timestamp: new Date(this.now()).toISOString(),
      event_type: input.event_type,
      category: input.category,
      result: input.result,
      severity: input.severity ?? DEFAULT_SEVERITY[input.result],
      actor: optionalText(input.actor),
      source: optionalText(input.source),
      subsystem: optionalText(input.subsystem),
      action: optionalText(input.action),
      session_id: optionalText(input.session_id),
      task_id: optionalText(input.task_id),
      detail: redact(input.detail ?? {}) as Record<string, unknown>,
    };
    const prevHash = this.lastHash;
    const hash = eventHash(prevHash, event);
    this.insert.run({ ...event, detail: JSON.stringify(event.detail), prev_hash: prevHash, hash });
    this.lastHash = hash;
    return event;
  }

  /** Walk the chain from the start; report the first event whose link or content does not verify. */
  verify(): { ok: true; count: number } | { ok: false; count: number; brokenAt: { seq: number; id: string; reason: string } } {
    let prev = GENESIS_HASH;
    let count = 0;
    const rows = this.database.db.prepare('SELECT * FROM audit_events ORDER BY seq').iterate() as IterableIterator<AuditRow>;
    for (const row of rows) {
      count++;
      let reason: string | null = null;
      if (row.prev_hash !== prev) reason = 'prev_hash does not match the previous event (event removed or reordered)';
      else {
        let event: AuditEvent | null = null;
        try {
          event = rowToEvent(row);
        } catch {
          reason = 'detail is not valid JSON';
        }
        if (event && eventHash(prev, event) !== row.hash) reason = 'hash does not match the content (event modified)';
      }
      if (reason) return { ok: false, count, brokenAt: { seq: row.seq, id: row.id, reason } };
      prev = row.hash;
    }
    return { ok: true, count };
  }
}
