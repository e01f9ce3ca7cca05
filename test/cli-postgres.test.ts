import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PG_MIGRATIONS } from '../src/storage/postgres/migrations/index.js';
import { BIN } from './helpers/cli.js';
import { createTestDatabase, postgresTestUrl, type TestDatabase } from './helpers/postgres.js';

const LATEST = PG_MIGRATIONS.at(-1)!.version;

// The built CLI (`npm test` builds first), as an operator runs it.
let dir: string;
let database: TestDatabase | undefined;
afterEach(async () => {
  rmSync(dir, { recursive: true, force: true });
  await database?.drop();
  database = undefined;
});

const agentd = (args: string[], env: NodeJS.ProcessEnv = {}) => {
  const { SERVICE_API_KEY: _key, DATABASE_URL: _db, ...rest } = process.env;
  const run = spawnSync(process.execPath, [BIN, ...args], { env: { ...rest, ...env }, timeout: 20_000 });
  return { status: run.status, stdout: run.stdout.toString(), stderr: run.stderr.toString() };
};

describe('agentd migrate', () => {
  it('on SQLite, creates and migrates the home database', () => {
    dir = mkdtempSync(join(tmpdir(), 'agentd-cli-'));
    writeFileSync(join(dir, 'config.yaml'), 'api:\n  api_key: k\n', { mode: 0o600 });
    const run = agentd(['migrate', '--home', dir]);
    expect(run).toMatchObject({ status: 0, stdout: `SQLite ${join(dir, 'agentd.db')}: schema current\n` });
    expect(existsSync(join(dir, 'agentd.db'))).toBe(true);
  });

  it.skipIf(postgresTestUrl === null)('on PostgreSQL (URL from DATABASE_URL), applies the schema once; doctor and audit verify read it', async () => {
    database = await createTestDatabase();
    dir = mkdtempSync(join(tmpdir(), 'agentd-cli-'));
    writeFileSync(join(dir, 'config.yaml'), 'api:\n  api_key: k\nstorage:\n  backend: postgres\n', { mode: 0o600 });
    const env = { DATABASE_URL: database.url };
    const shown = database.url.replace(/^postgres(ql)?:\/\//, '');

    const first = agentd(['migrate', '--home', dir], env);
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(new RegExp(`^PostgreSQL postgres(ql)?://${shown.replace(/[.?*+^$()[\]{}|\\/]/g, '\\$&')}: applied ${PG_MIGRATIONS.map((m) => m.version).join(', ')}; schema at version ${LATEST}\n$`));
    expect(agentd(['migrate', '--home', dir], env).stdout).toContain(`nothing to apply; schema at version ${LATEST}`);

    const doctor = agentd(['doctor', '--home', dir, '--json'], env);
    const report = JSON.parse(doctor.stdout) as { sections: { key: string; checks: { name: string; status: string; summary: string }[] }[] };
    const check = report.sections.find((s) => s.key === 'memory')!.checks.find((c) => c.name === 'database');
    expect(check).toMatchObject({ status: 'ok', summary: expect.stringContaining(`schema version ${LATEST} (current)`) });

    expect(agentd(['audit', 'verify', '--home', dir], env)).toMatchObject({ status: 0, stdout: 'audit chain ok: 0 events verified\n' });
  });

  it('on PostgreSQL that cannot be reached, exits 1 naming the server without its password', () => {
    dir = mkdtempSync(join(tmpdir(), 'agentd-cli-'));
    writeFileSync(join(dir, 'config.yaml'), 'api:\n  api_key: k\nstorage:\n  backend: postgres\n  postgres_url: postgres://agentd:hunter2@127.0.0.1:1/agentd\n', { mode: 0o600 });
    const run = agentd(['migrate', '--home', dir]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('cannot migrate PostgreSQL postgres://agentd:***@127.0.0.1:1/agentd: connect ECONNREFUSED');
    expect(run.stderr + run.stdout).not.toContain('hunter2');
  });
});
