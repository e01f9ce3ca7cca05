import type { Migration } from './types.js';

export const auditMigration: Migration = {
  version: 1,
  name: 'audit_events',
  sql: `
    CREATE TABLE audit_events (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
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
    CREATE INDEX audit_events_timestamp ON audit_events (timestamp);
    CREATE INDEX audit_events_event_type ON audit_events (event_type, seq);
    CREATE INDEX audit_events_category ON audit_events (category, seq);
    CREATE INDEX audit_events_result ON audit_events (result, seq);
    CREATE INDEX audit_events_severity ON audit_events (severity, seq);
    CREATE INDEX audit_events_subsystem ON audit_events (subsystem, seq);
    CREATE INDEX audit_events_session ON audit_events (session_id, seq);
    CREATE INDEX audit_events_task ON audit_events (task_id, seq);
    CREATE INDEX audit_events_actor ON audit_events (actor, seq);
    CREATE INDEX audit_events_source ON audit_events (source, seq);
    CREATE INDEX audit_events_action ON audit_events (action, seq);
  `,
};
