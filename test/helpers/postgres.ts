import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { tcpRelay } from './tcp-relay.js';

/**
 * PostgreSQL for tests. Suites that need it run when AGENTD_TEST_POSTGRES_URL names a server whose
 * user may create databases (`.ci/run` sets it, so CI never skips them); without it they are
 * skipped and `test/postgres-notice.ts` prints one line saying how to enable them.
 */
export const POSTGRES_TEST_VARIABLE = 'AGENTD_TEST_POSTGRES_URL';
export const postgresTestUrl: string | null = process.env[POSTGRES_TEST_VARIABLE] || null;

/** `url` with another database name. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** A new empty database `agentd_test_<random>` on the test server; `drop()` removes it (and ends its connections). */
export async function createTestDatabase(): Promise<TestDatabase> {
  if (postgresTestUrl === null) throw new Error(`${POSTGRES_TEST_VARIABLE} is not set`);
  const name = `agentd_test_${randomBytes(6).toString('hex')}`;
  await admin(`CREATE DATABASE ${name}`);
  return {
    name,
    url: withDatabase(postgresTestUrl, name),
    drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: postgresTestUrl! });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * A TCP relay to the test server that the test can cut: `stop()` drops every connection and
 * refuses new ones (the database "goes down" for whoever connects through it), `start()` brings
 * it back on the same port.
 */
export async function databaseRelay(): Promise<{ url(database: string): string; stop(): Promise<void>; start(): Promise<void> }> {
  const target = new URL(postgresTestUrl!);
  const relay = await tcpRelay(target.hostname, Number(target.port || 5432));
  return {
    url: (database) => {
      const url = new URL(withDatabase(postgresTestUrl!, database));
      url.hostname = '127.0.0.1';
      url.port = String(relay.port());
      return url.toString();
    },
    stop: relay.stop,
    start: relay.start,
  };
}
