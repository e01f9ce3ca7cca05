import type { PgMigration } from './types.js';

/**
 * The audit log: one hash chain for the whole service, whichever replica appends.
 *
 * - `seq` is the chain order. Appends take the chain lock (`CHAIN_LOCK`) before drawing their
 *   `seq`s and hold it to their commit, so a later `seq` is always a later link.
 * - Timestamps are stored as the ISO 8601 text the API returns (`toISOString()`, always the same
 *   length), so text order is time order; `COLLATE "C"` keeps that order whatever the database's
 *   collation is.
 * - `detail` is the JSON text exactly as hashed and as `q` searches it (jsonb would reorder keys).
 * - Every query orders newest first by (timestamp, seq): each index ends in those two, so a page
 *   is read in index order. Filters that narrow well get an index; result, severity and subsystem
 *   (a handful of values each) and action (on nearly every event) filter the rows another index
 *   or the time index reads: each index is one more b-tree written on every event.
 * - `q` is a case-insensitive substring: trigram GIN indexes over the lower-cased event type and
 *   detail serve `LIKE '%…%'` when the pg_trgm extension can be created; without it the search
 *   reads the rows the other conditions leave (still exact, slower on a large log).
 */
export const auditMigration: PgMigration = {
  version: 1,
  name: 'audit_events',
  sql: `
    CREATE TABLE audit_events (
      seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      id text NOT NULL,
      timestamp text COLLATE "C" NOT NULL,
      event_type text NOT NULL,
      category text NOT NULL,
      result text NOT NULL,
      severity text NOT NULL,
      actor text,
      source text,
      subsystem text,
      action text,
      session_id text,
      task_id text,
      detail text NOT NULL,
      prev_hash text NOT NULL,
      hash text NOT NULL
    );
    CREATE INDEX audit_events_time ON audit_events (timestamp, seq);
    CREATE INDEX audit_events_type ON audit_events (event_type, timestamp, seq);
    CREATE INDEX audit_events_category ON audit_events (category, timestamp, seq);
    CREATE INDEX audit_events_session ON audit_events (session_id, timestamp, seq) WHERE session_id IS NOT NULL;
    CREATE INDEX audit_events_task ON audit_events (task_id, timestamp, seq) WHERE task_id IS NOT NULL;
    CREATE INDEX audit_events_actor ON audit_events (actor, timestamp, seq) WHERE actor IS NOT NULL;
    CREATE INDEX audit_events_source ON audit_events (source, timestamp, seq) WHERE source IS NOT NULL;

    DO $$
    BEGIN
      CREATE EXTENSION IF NOT EXISTS pg_trgm;
    EXCEPTION WHEN OTHERS THEN
      RAISE NOTICE 'pg_trgm is not available (%): audit searches read the rows their other filters leave', SQLERRM;
    END $$;
    DO $$
    BEGIN
      IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
        CREATE INDEX audit_events_detail_text ON audit_events USING gin (lower(detail) gin_trgm_ops);
        CREATE INDEX audit_events_type_text ON audit_events USING gin (lower(event_type) gin_trgm_ops);
      END IF;
    END $$;
  `,
};
