import type { Migration } from './types.js';

/**
 * Messages a channel acknowledged. `waiting` is 1 until the message's run exists; the partial index
 * holds only the few waiting rows (what a restart runs, and what the capacity counts). Started rows
 * stay, text erased, while their `request_id` (the sender's X-Request-Id) must catch repeats.
 */
export const channelInboxMigration: Migration = {
  version: 7,
  name: 'channel_inbox',
  sql: `
    CREATE TABLE channel_inbox (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      channel TEXT NOT NULL,
      sender TEXT NOT NULL,
      content TEXT NOT NULL,
      metadata TEXT NOT NULL,
      received_at TEXT NOT NULL,
      request_id TEXT,
      run_id TEXT NOT NULL UNIQUE,
      waiting INTEGER NOT NULL DEFAULT 1
    );
    CREATE INDEX channel_inbox_waiting ON channel_inbox (channel, id) WHERE waiting = 1;
    CREATE INDEX channel_inbox_request ON channel_inbox (channel, request_id, received_at) WHERE request_id IS NOT NULL;
  `,
};
