import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, type App, type CreateAppOptions } from '../../src/app.js';
import type { ConfigInput } from '../../src/config/schema.js';
import { createMemoryLogger } from '../../src/log.js';
import { randomToken } from '../../src/security/ids/tokens.js';
import { SqliteStorage } from '../../src/storage/sqlite/index.js';
import type { SqliteDatabase } from '../../src/storage/sqlite/database.js';

type DeepPartial<T> = { [K in keyof T]?: T[K] extends object ? (T[K] extends unknown[] ? T[K] : DeepPartial<T[K]>) : T[K] };

export interface TestApp {
  app: App;
  url: string;
  apiKey: string;
  home: string;
  log: ReturnType<typeof createMemoryLogger>;
  /** fetch against the app with the API key already attached. */
  request(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

export interface TestAppOptions extends Omit<CreateAppOptions, 'config' | 'home'> {
  config?: DeepPartial<ConfigInput>;
  home?: string;
  /** Register extra routes (e.g. a route that throws) before the server starts listening. */
  beforeListen?: (app: App) => void | Promise<void>;
}

function merge(base: Record<string, unknown>, extra: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    const current = out[key];
    out[key] =
      value && typeof value === 'object' && !Array.isArray(value) && current && typeof current === 'object'
        ? merge(current as Record<string, unknown>, value as Record<string, unknown>)
        : value;
  }
  return out;
}

/** The real app on a free port with a temporary home folder and its own SQLite file. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const home = options.home ?? mkdtempSync(join(tmpdir(), 'agentd-test-'));
  const apiKey = `test-${randomToken(16)}`;
  const log = createMemoryLogger();
  const config = merge({ api: { api_key: apiKey, port: 0, rate_limit_rpm: 100_000 } }, (options.config ?? {}) as Record<string, unknown>);
  const app = await createApp({ log, env: {}, ...options, home, config: config as ConfigInput });
  await options.beforeListen?.(app);
  const url = await app.listen();
  const key = (config.api as { api_key: string }).api_key;
  return {
    app,
    url,
    apiKey: key,
    home,
    log,
    request: (path, init = {}) => {
      const headers = new Headers(init.headers);
      if (!headers.has('authorization') && !headers.has('x-api-key')) headers.set('authorization', `Bearer ${key}`);
      return fetch(`${url}${path}`, { ...init, headers });
    },
    close: async () => {
      await app.close();
      if (!options.home) rmSync(home, { recursive: true, force: true });
    },
  };
}

/** The SQLite connection behind a test app, for assertions on what was stored. */
export function sqliteOf(app: App): SqliteDatabase {
  if (!(app.storage instanceof SqliteStorage)) throw new Error('the app does not run on SQLite');
  return app.storage.database.db;
}
