import type { PgMigration } from './types.js';

/**
 * The webhook's durable intake, scheduled jobs and run-time settings.
 *
 * - `channel_inbox`: `waiting` until the message's run exists; the partial index holds only the few
 *   waiting rows. Started rows stay, text erased, while their `request_id` must catch repeats.
 * - `jobs`: a fire is claimed by an UPDATE that matches the `next_run_at` the runner read and moves
 *   it on; on PostgreSQL a second runner's UPDATE waits for the first's row lock, then finds the
 *   value moved and matches nothing, so each occurrence fires once across replicas.
 */
export const inboxJobsSettingsMigration: PgMigration = {
  version: 4,
  name: 'inbox_jobs_settings',
  sql: `
    CREATE TABLE channel_inbox (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      channel text NOT NULL,
      sender text NOT NULL,
      content text NOT NULL,
      metadata text NOT NULL,
      received_at text COLLATE "C" NOT NULL,
      request_id text,
      run_id text NOT NULL UNIQUE,
      waiting boolean NOT NULL DEFAULT true
    );
    CREATE INDEX channel_inbox_waiting ON channel_inbox (channel, id) WHERE waiting;
    CREATE INDEX channel_inbox_request ON channel_inbox (channel, request_id, received_at) WHERE request_id IS NOT NULL;

    CREATE TABLE jobs (
      seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      id text NOT NULL UNIQUE,
      name text NOT NULL,
      description text,
      schedule text NOT NULL,
      task text NOT NULL,
      provider text,
      active_hours text,
      timezone text NOT NULL,
      state text NOT NULL CHECK (state IN ('active', 'paused')),
      created_at text COLLATE "C" NOT NULL,
      next_run_at text COLLATE "C",
      last_run_at text COLLATE "C",
      last_status text CHECK (last_status IN ('starting', 'running', 'complete', 'error', 'cancelled', 'interrupted')),
      last_run_id text,
      last_error text,
      run_count bigint NOT NULL DEFAULT 0,
      skipped bigint NOT NULL DEFAULT 0,
      last_skipped_at text COLLATE "C",
      last_skip_reason text CHECK (last_skip_reason IN ('in_flight', 'active_hours', 'budget')),
      missed bigint NOT NULL DEFAULT 0,
      last_missed_at text COLLATE "C"
    );
    CREATE INDEX jobs_due ON jobs (next_run_at) WHERE state = 'active' AND next_run_at IS NOT NULL;
    CREATE INDEX jobs_unsettled ON jobs (seq) WHERE last_status IN ('starting', 'running');

    CREATE TABLE settings (
      key text PRIMARY KEY,
      value text NOT NULL,
      updated_at text COLLATE "C" NOT NULL
    );
  `,
};
