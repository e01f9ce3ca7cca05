import type { Migration } from './types.js';

/**
 * What the audit browser needs to answer filtered, faceted, paged queries on a table that only grows.
 *
 * - `audit_kinds` names each distinct (event_type, category, result, severity, subsystem) once;
 *   every event stores its `kind`. These five fields are set by code, never by clients, so there
 *   are a few dozen kinds. A filter on any of them becomes a set of kinds, and a facet is a sum
 *   over kinds, so the indexes below carry one small integer instead of five strings.
 * - `audit_counts_days` and `audit_counts_hours` count events per kind per UTC day and hour, kept
 *   by the store in the transaction that inserts or deletes the events (exact, rolled back with
 *   them), summed per batch. Totals and facets of a query on those five fields and a time range
 *   read days for the whole days in the range, hours for the whole hours at its ends, and the
 *   events themselves only for the minutes left over. Not triggers: a statement with a trigger
 *   copies every page it touches into a statement journal first, which made an audit insert three
 *   times as costly.
 * - Every index ends in (timestamp, seq): the API's order (newest first, then chain order) is index
 *   order, so a page is read without sorting. The time and kind indexes carry `kind`, so a walk
 *   that skips events of other kinds never reads a row. Actor, source, session and task are
 *   selective and often absent: partial indexes that hold only events that have one (the full
 *   session and task indexes they replace held a row for every event). `action` has no index: it
 *   is on nearly every event, so one would cost every write, and the console does not filter on it.
 * - `audit_search` is a trigram index of the lower-cased event type and detail for `q`, filled
 *   in batches after the events commit (a full-text write inside the event's own transaction,
 *   which runs under savepoints, flushes one index segment per event: about four times the cost
 *   of the event itself). `audit_search_state` says through which `seq` it is filled; newer events
 *   are matched by reading them, so `q` is exact whatever the index has caught up with.
 *   `detail=none` keeps it a third of the size: it only proposes candidates, and each candidate is
 *   checked against the stored text. `contentless_delete` lets retention remove rows by `seq`.
 * - `seq` becomes AUTOINCREMENT: a `seq` is never reused (retention can empty the table), so a
 *   stale search row can never stand for a later event.
 *
 * Existing events are copied into the new table with their kind, and the counts are built from them.
 */
export const auditBrowserMigration: Migration = {
  version: 10,
  name: 'audit_browser',
  sql: `
    CREATE TABLE audit_kinds (
      kind INTEGER PRIMARY KEY,
      event_type TEXT NOT NULL,
      category TEXT NOT NULL,
      result TEXT NOT NULL,
      severity TEXT NOT NULL,
      subsystem TEXT
    );
    CREATE UNIQUE INDEX audit_kinds_fields ON audit_kinds (event_type, category, result, severity, subsystem IS NULL, ifnull(subsystem, ''));
    INSERT INTO audit_kinds (event_type, category, result, severity, subsystem)
      SELECT DISTINCT event_type, category, result, severity, subsystem FROM audit_events;

    CREATE TABLE audit_events_v2 (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL,
      timestamp TEXT NOT NULL,
      event_type TEXT NOT NULL,
      category TEXT NOT NULL,
      result TEXT NOT NULL,
      severity TEXT NOT NULL,
      actor TEXT,
      source TEXT,
      subsystem TEXT,
      action TEXT,
      session_id TEXT,
      task_id TEXT,
      detail TEXT NOT NULL,
      prev_hash TEXT NOT NULL,
      hash TEXT NOT NULL,
      kind INTEGER NOT NULL
    );
    INSERT INTO audit_events_v2
      SELECT e.seq, e.id, e.timestamp, e.event_type, e.category, e.result, e.severity, e.actor, e.source, e.subsystem,
        e.action, e.session_id, e.task_id, e.detail, e.prev_hash, e.hash, k.kind
      FROM audit_events e JOIN audit_kinds k ON k.event_type = e.event_type AND k.category = e.category
        AND k.result = e.result AND k.severity = e.severity AND k.subsystem IS e.subsystem
      ORDER BY e.seq;
    DROP TABLE audit_events;
    ALTER TABLE audit_events_v2 RENAME TO audit_events;

    CREATE INDEX audit_events_time ON audit_events (timestamp, seq, kind);
    CREATE INDEX audit_events_kind ON audit_events (kind, timestamp, seq);
    CREATE INDEX audit_events_session ON audit_events (session_id, timestamp, seq, kind) WHERE session_id IS NOT NULL;
    CREATE INDEX audit_events_task ON audit_events (task_id, timestamp, seq, kind) WHERE task_id IS NOT NULL;
    CREATE INDEX audit_events_actor ON audit_events (actor, timestamp, seq, kind) WHERE actor IS NOT NULL;
    CREATE INDEX audit_events_source ON audit_events (source, timestamp, seq, kind) WHERE source IS NOT NULL;

    CREATE TABLE audit_counts_days (
      day TEXT NOT NULL,
      kind INTEGER NOT NULL,
      n INTEGER NOT NULL,
      PRIMARY KEY (day, kind)
    ) WITHOUT ROWID;
    CREATE TABLE audit_counts_hours (
      hour TEXT NOT NULL,
      kind INTEGER NOT NULL,
      n INTEGER NOT NULL,
      PRIMARY KEY (hour, kind)
    ) WITHOUT ROWID;
    INSERT INTO audit_counts_days SELECT substr(timestamp, 1, 10), kind, count(*) FROM audit_events GROUP BY 1, 2;
    INSERT INTO audit_counts_hours SELECT substr(timestamp, 1, 13), kind, count(*) FROM audit_events GROUP BY 1, 2;

    CREATE VIRTUAL TABLE audit_search USING fts5(
      event_type, detail, content = '', contentless_delete = 1, detail = none, tokenize = 'trigram case_sensitive 1'
    );
    CREATE TABLE audit_search_state (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      indexed_through INTEGER NOT NULL
    );
    INSERT INTO audit_search_state (id, indexed_through) VALUES (1, 0);
  `,
};
