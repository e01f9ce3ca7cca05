import type { Migration } from './types.js';

export const auditMigration: Migration = {
  version: 1,
  name: 'audit_events',
  sql: `
    CREATE TABLE audit_events (
      seq INTEGER PRIMARY KEY,
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
      hash TEXT NOT NULL
    );
    -- id is 96 random bits: unique without a UNIQUE index, which would be one more b-tree
    -- written at a random position on every event.
    -- Indexes only where a filter is selective (time range, event type, session, task): every
    -- index is another b-tree written on each event, and audit writes sit on hot paths (the
    -- gateway audits every request). Low-cardinality filters (result, severity, category,
    -- subsystem) scan the already-narrowed set instead.
    CREATE INDEX audit_events_timestamp ON audit_events (timestamp);
    CREATE INDEX audit_events_event_type ON audit_events (event_type, seq);
    CREATE INDEX audit_events_session ON audit_events (session_id, seq);
    CREATE INDEX audit_events_task ON audit_events (task_id, seq);
  `,
};
