import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, type App } from '../src/app.js';
import { createMemoryLogger } from '../src/log.js';
import { SqliteStorage } from '../src/storage/sqlite/index.js';

/**
 * The real app on a fresh home with the SQLite backend, in this process, without a rate limit:
 * for benchmarks that load data through its stores and then query it over HTTP.
 */
export async function startSqliteApp(name: string, apiKey: string): Promise<{ app: App; home: string; storage: SqliteStorage; close(): Promise<void> }> {
  const home = mkdtempSync(join(tmpdir(), `agentd-bench-${name}-`));
  const app = await createApp({
    home, env: {}, log: createMemoryLogger(),
    config: { api: { api_key: apiKey, port: 0, rate_limit_rpm: 1_000_000_000 } },
  });
  const close = async () => {
    await app.close();
    rmSync(home, { recursive: true, force: true });
  };
  if (!(app.storage instanceof SqliteStorage)) {
    await close();
    throw new Error(`the ${name} benchmark needs the SQLite backend`);
  }
  return { app, home, storage: app.storage, close };
}
