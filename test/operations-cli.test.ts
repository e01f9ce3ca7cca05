import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import BetterSqlite3 from 'better-sqlite3';
import { AuditLog } from '../src/audit/log.js';
import { SqliteStorage } from '../src/storage/sqlite/index.js';
import { BIN, spawnServe } from './helpers/cli.js';

// The built CLI (`npm test` builds first), as an operator runs it.
let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function env(): NodeJS.ProcessEnv {
  const { SERVICE_API_KEY: _ignored, DATABASE_URL: _url, ...rest } = process.env;
  return rest;
}

function agentd(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { env: env() });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  return new Promise((res) => child.on('exit', (code) => res({ code, stdout, stderr })));
}

const KEY = 'backup-test-key';

function home(name: string): string {
  const path = join(dir, name);
  mkdirSync(path, { mode: 0o700 });
  writeFileSync(join(path, 'config.yaml'), `api:\n  api_key: ${KEY}\n  rate_limit_rpm: 100000\n`, { mode: 0o600 });
  return path;
}

async function chat(url: string, message: string): Promise<string> {
  const res = await fetch(`${url}/api/v1/chat`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ message }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { session_id: string } }).data.session_id;
}

describe('agentd backup', () => {
  it('copies the database of a running service while it writes, into one file that a new home serves', async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentd-backup-'));
    const source = home('live');
    const service = spawnServe(['--home', source, '--port', '0'], env());
    const url = await service.ready;
    try {
      const acknowledged: string[] = [];
      for (let i = 0; i < 20; i++) acknowledged.push(await chat(url, `remember parcel ${i}`));
      // Chats keep committing while the copy is taken.
      let writing = true;
      const during = (async () => {
        let n = 0;
        while (writing) await chat(url, `during backup ${n++}`);
        return n;
      })();
      const file = join(dir, 'agentd-backup.db');
      const backup = await agentd(['backup', file, '--home', source]);
      writing = false;
      expect(await during).toBeGreaterThan(0);
      expect(backup.stderr).toBe('');
      expect(backup.code).toBe(0);
      expect(backup.stdout).toMatch(/^backed up .*agentd\.db to .*agentd-backup\.db \(\d+ bytes, integrity ok\)\n$/);
      // One self-contained, owner-only file: no -wal or -shm beside it.
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(existsSync(`${file}-wal`) || existsSync(`${file}-shm`)).toBe(false);

      const copy = new SqliteStorage(file, { readonly: true });
      try {
        expect(copy.database.db.pragma('integrity_check', { simple: true })).toBe('ok');
        const verdict = await new AuditLog(copy.audit).verify();
        expect(verdict.ok).toBe(true);
        for (const sessionId of acknowledged) expect(await copy.turns.history(sessionId, 10)).toHaveLength(2);
      } finally {
        await copy.close();
      }

      // Restore: the copy becomes another home's agentd.db.
      const restored = home('restored');
      copyFileSync(file, join(restored, 'agentd.db'));
      const second = spawnServe(['--home', restored, '--port', '0'], env());
      try {
        const secondUrl = await second.ready;
        const res = await fetch(`${secondUrl}/api/v1/memory/search?q=parcel+7`, { headers: { authorization: `Bearer ${KEY}` } });
        const found = ((await res.json()) as { data: { results: { session_id: string }[] } }).data.results;
        expect(found.map((r) => r.session_id)).toContain(acknowledged[7]);
      } finally {
        second.child.kill('SIGTERM');
        expect(await second.exited).toBe(0);
      }
    } finally {
      service.child.kill('SIGTERM');
      expect(await service.exited).toBe(0);
    }
  });

  it('never overwrites an existing file', async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentd-backup-'));
    const source = home('home');
    expect((await agentd(['migrate', '--home', source])).code).toBe(0);
    const file = join(dir, 'precious.db');
    writeFileSync(file, 'not to be lost');
    const backup = await agentd(['backup', file, '--home', source]);
    expect(backup.code).toBe(1);
    expect(backup.stderr).toContain(`${file} already exists; agentd backup never overwrites a file`);
    expect(readFileSync(file, 'utf8')).toBe('not to be lost');
  });

  it('names pg_dump on the PostgreSQL backend, without the URL\'s password, and exits 1', async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentd-backup-'));
    const source = join(dir, 'home');
    mkdirSync(source, { mode: 0o700 });
    writeFileSync(join(source, 'config.yaml'),
      'api:\n  api_key: k\nstorage:\n  backend: postgres\n  postgres_url: postgres://agentd:hunter2@127.0.0.1:1/agentd\n', { mode: 0o600 });
    const file = join(dir, 'out.db');
    const backup = await agentd(['backup', file, '--home', source]);
    expect(backup.code).toBe(1);
    expect(backup.stderr).toContain('back that up with pg_dump');
    expect(backup.stderr).toContain('postgres://agentd:***@127.0.0.1:1/agentd');
    expect(backup.stderr).not.toContain('hunter2');
    expect(existsSync(file)).toBe(false);
  });
});

describe('upgrading', () => {
  it('a home whose database a newer agentd migrated is refused by serve and migrate, naming the versions', async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentd-upgrade-'));
    const source = home('home');
    expect((await agentd(['migrate', '--home', source])).code).toBe(0);
    const db = new BetterSqlite3(join(source, 'agentd.db'));
    const latest = (db.prepare('SELECT max(version) AS v FROM schema_migrations').get() as { v: number }).v;
    db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(latest + 1, 'from_a_newer_agentd', new Date().toISOString());
    db.close();
    const expected = `it was migrated by a newer agentd (schema version ${latest + 1}; this agentd knows up to ${latest}): upgrade agentd, or restore a backup taken before the upgrade`;
    for (const command of [['serve', '--port', '0'], ['migrate']]) {
      const refused = await agentd([...command, '--home', source]);
      expect(refused.code, command[0]).toBe(1);
      expect(refused.stderr, command[0]).toContain(expected);
      expect(refused.stdout, command[0]).not.toContain('listening');
    }
    // A backup still copies it: it is the operator's way back.
    expect((await agentd(['backup', join(dir, 'before-downgrade.db'), '--home', source])).code).toBe(0);
  });
});
