import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../src/storage/sqlite/index.js';
import { BIN } from './helpers/cli.js';
import { makeReadOnly } from './helpers/mounts.js';

/**
 * `agentd audit verify` and `agentd doctor` on a read-only home (a snapshot, a backup mount) read it
 * without writing a byte, in each state a home can be copied in; `agentd serve` refuses it in one
 * sentence. The home is really read-only: a read-only bind mount as root (CI), else no write bits.
 */
/** Whether this process can make a folder read-only at all (tried and undone at once). */
function canMakeReadOnly(): boolean {
  const probe = mkdtempSync(join(tmpdir(), 'agentd-ro-probe-'));
  const undo = makeReadOnly(probe);
  undo?.();
  rmSync(probe, { recursive: true, force: true });
  return undo !== null;
}

let root: string;

const EVENTS = 5;
const CONFIG = 'api:\n  api_key: ro-key\n';

/** A home whose database was being written when the process was killed: its last commits are in the WAL only. */
function killedWhileWriting(home: string): void {
  const storage = resolve('dist/src/storage/sqlite/index.js');
  const audit = resolve('dist/src/audit/log.js');
  const script = `
    const { SqliteStorage } = await import(${JSON.stringify(storage)});
    const { AuditLog } = await import(${JSON.stringify(audit)});
    const storage = new SqliteStorage(${JSON.stringify(join(home, 'agentd.db'))});
    const log = new AuditLog(storage.audit);
    for (let i = 0; i < ${EVENTS}; i++) await log.emit({ event_type: 'snapshot.probe', category: 'test', result: 'allow', detail: { i } });
    await storage.turns.addMany([{ session_id: 'ses_ro', role: 'user', content: 'kept in the WAL', provider: 'offline' }]);
    process.kill(process.pid, 'SIGKILL');`;
  mkdirSync(home);
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script]);
  if (run.signal !== 'SIGKILL') throw new Error(`the writer did not get to its end: ${run.stderr.toString()}`);
  writeFileSync(join(home, 'config.yaml'), CONFIG, { mode: 0o600 });
}

/** Runs the CLI with a private temporary folder, which must be empty again when it is done. */
function agentd(args: string[]) {
  const temp = mkdtempSync(join(root, 'tmp-'));
  const { SERVICE_API_KEY: _ignored, ...env } = process.env;
  const run = spawnSync(process.execPath, [BIN, ...args], { env: { ...env, TMPDIR: temp }, timeout: 20_000 });
  const leftovers = readdirSync(temp);
  rmSync(temp, { recursive: true, force: true });
  return { status: run.status, stdout: run.stdout.toString(), stderr: run.stderr.toString(), leftovers };
}

type Report = { overall: string; source: string; sections: { key: string; checks: { name: string; status: string; summary: string }[] }[] };
const checkOf = (report: Report, name: string) => report.sections.find((s) => s.key === 'memory')!.checks.find((c) => c.name === name);

describe.runIf(canMakeReadOnly())('a read-only home', () => {
  const homes: Record<string, string> = {};
  const undo: (() => void)[] = [];

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'agentd-ro-'));
    const snapshot = join(root, 'snapshot');
    killedWhileWriting(snapshot);
    expect(statSync(join(snapshot, 'agentd.db-wal')).size).toBeGreaterThan(0);
    homes['a snapshot of a running service (-wal and -shm beside the file)'] = snapshot;

    const noShm = join(root, 'no-shm');
    cpSync(snapshot, noShm, { recursive: true });
    rmSync(join(noShm, 'agentd.db-shm'));
    homes['a backup that left out the -shm file'] = noShm;

    // Opened and closed as a service does when it stops: the WAL is folded in and removed.
    const stopped = join(root, 'stopped');
    cpSync(snapshot, stopped, { recursive: true });
    new Database(join(stopped, 'agentd.db')).close();
    expect(readdirSync(stopped).sort()).toEqual(['agentd.db', 'config.yaml']);
    homes['the home of a stopped service (the file alone)'] = stopped;

    for (const home of Object.values(homes)) {
      const step = makeReadOnly(home);
      if (!step) throw new Error(`could not make ${home} read-only`);
      undo.push(step);
    }
  });

  afterAll(() => {
    for (const step of undo) step();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it.each(['a snapshot of a running service (-wal and -shm beside the file)', 'a backup that left out the -shm file', 'the home of a stopped service (the file alone)'])(
    'is verified and diagnosed when it is %s',
    (state) => {
      const home = homes[state]!;
      const before = readdirSync(home).sort();
      const verify = agentd(['audit', 'verify', '--home', home]);
      expect(verify).toMatchObject({ status: 0, stdout: `audit chain ok: ${EVENTS} events verified\n`, stderr: '', leftovers: [] });

      const doctor = agentd(['doctor', '--home', home, '--json']);
      expect(doctor).toMatchObject({ status: 0, stderr: '', leftovers: [] });
      const report = JSON.parse(doctor.stdout) as Report;
      expect(report.source).toBe('offline');
      expect(report.overall).not.toBe('error');
      expect(checkOf(report, 'store')?.summary).toBe('1 turns stored');
      expect(checkOf(report, 'integrity')?.status).toBe('ok');
      expect(checkOf(report, 'storage')).toMatchObject({ status: 'warn', summary: expect.stringContaining('read-only') });
      expect(readdirSync(home).sort()).toEqual(before);
    },
  );

  it('is refused by agentd serve in one sentence naming it', () => {
    const home = homes['the home of a stopped service (the file alone)']!;
    const serve = agentd(['serve', '--home', home, '--port', '0']);
    expect(serve.status).toBe(1);
    expect(serve.stdout).toBe('');
    expect(serve.stderr).toMatch(new RegExp(`^cannot write to the home folder ${home}: [^\\n]+\\n$`));
  });
});
