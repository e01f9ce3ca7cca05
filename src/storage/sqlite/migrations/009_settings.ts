import type { Migration } from './types.js';

/** Settings an operator changes while the service runs (the default provider), kept across restarts. */
export const settingsMigration: Migration = {
  version: 9,
  name: 'settings',
  sql: `
    CREATE TABLE settings (
      key TEXT PRIMARY KEY,
      value TEXT NOT NULL,
      updated_at TEXT NOT NULL
    ) WITHOUT ROWID;
  `,
};
