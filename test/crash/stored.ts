import { join } from 'node:path';
import pg from 'pg';
import { Database } from '../../src/storage/sqlite/index.js';

/**
 * The crash test's view of what the service stored, on either backend: rows read with one SQL
 * text (`?` placeholders; the few spots where the dialects differ are written so both accept
 * them), and the backend's own check of its files where it has one.
 */
export interface StoredRows {
  all<R>(sql: string, params?: unknown[]): Promise<R[]>;
  /** SQLite's `integrity_check` ('ok' when sound); PostgreSQL checks its own pages as it reads them. */
  integrity(): Promise<string | null>;
  close(): Promise<void>;
}

export function sqliteRows(home: string): StoredRows {
  const store = new Database(join(home, 'agentd.db'));
  return {
    all: async <R>(sql: string, params: unknown[] = []) => store.db.prepare(sql).all(...params) as R[],
    integrity: async () => store.db.pragma('integrity_check', { simple: true }) as string,
    close: async () => store.close(),
  };
}

export async function postgresRows(url: string): Promise<StoredRows> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    all: async <R>(sql: string, params: unknown[] = []) => {
      let n = 0;
      return (await client.query(sql.replace(/\?/g, () => `$${++n}`), params)).rows as R[];
    },
    integrity: async () => null,
    close: () => client.end(),
  };
}
