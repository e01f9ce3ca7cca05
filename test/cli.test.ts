import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../src/audit/log.js';
import { Database, SqliteStorage } from '../src/storage/sqlite/index.js';
import { BIN, spawnServe } from './helpers/cli.js';

// These tests run the built CLI (`npm test` builds first), as an operator would.
const DIST_INDEX = resolve('dist/src/index.js');
let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function env(): NodeJS.ProcessEnv {
  const { SERVICE_API_KEY: _ignored, ...rest } = process.env;
  return rest;
}

/** Start `agentd serve` and resolve once the ready line is printed. */
function serve(home: string, extraEnv: NodeJS.ProcessEnv = {}) {
  const proc = spawnServe(['--home', home, '--port', '0'], { ...env(), ...extraEnv });
  return { ...proc, output: proc.stdout, errors: proc.stderr };
}

describe('agentd serve', () => {
  it('bootstraps on first run, serves with the printed key and stops cleanly on SIGTERM', async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentd-cli-'));
    const home = join(dir, 'home');
    const proc = serve(home);
    const url = await proc.ready;
    const key = /API key: (\S+)/.exec(proc.output())?.[1];
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(proc.output()).toContain(`Console: ${url}/`);
    expect(statSync(join(home, 'config.yaml')).mode & 0o777).toBe(0o600);
    expect(statSync(home).mode & 0o777).toBe(0o700);
    const health = await fetch(`${url}/api/v1/health`, { headers: { authorization: `Bearer ${key}` } });
    expect(health.status).toBe(200);
    proc.child.kill('SIGTERM');
    const code = await proc.exited;
    expect(proc.errors()).toContain('SIGTERM');
    expect(code).toBe(0);

    // Second start: no new key is printed.
    const again = serve(home);
    await again.ready;
    expect(again.output()).not.toContain('API key:');
    again.child.kill('SIGINT');
    expect(await again.exited).toBe(0);
  });

  it('refuses a second service on the same home and leaves the first one serving', async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentd-cli-'));
    writeFileSync(join(dir, 'config.yaml'), 'api:\n  api_key: lock-key\n', { mode: 0o600 });
    const first = serve(dir);
    const url = await first.ready;
    const second = spawnSync(process.execPath, [BIN, 'serve', '--home', dir, '--port', '0'], { env: env(), timeout: 10_000 });
    expect(second.status).toBe(1);
    expect(second.stderr.toString()).toContain(`another agentd (pid ${first.child.pid})`);
    expect((await fetch(`${url}/api/v1/health`, { headers: { authorization: 'Bearer lock-key' } })).status).toBe(200);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
  });

  it('refuses to start on a config error that names the key', () => {
    dir = mkdtempSync(join(tmpdir(), 'agentd-cli-'));
    writeFileSync(join(dir, 'config.yaml'), 'api:\n  api_key: k\n  rate_limt_rpm: 5\n');
    const run = spawnSync(process.execPath, [BIN, 'serve', '--home', dir, '--port', '0'], { env: env(), timeout: 10_000 });
    expect(run.status).toBe(1);
    expect(run.stderr.toString()).toContain('unknown config key "api.rate_limt_rpm"');
    expect(run.stdout.toString()).not.toContain('listening');
  });
});

describe('agentd doctor', () => {
  it('reports the nine sections and exits 1 only when a check is an error', () => {
    dir = mkdtempSync(join(tmpdir(), 'agentd-cli-'));
    writeFileSync(join(dir, 'config.yaml'), 'api:\n  api_key: some-key\n', { mode: 0o600 });
    const fine = spawnSync(process.execPath, [BIN, 'doctor', '--home', dir, '--json'], { env: env() });
    expect(fine.status).toBe(0);
    const report = JSON.parse(fine.stdout.toString()) as { overall: string; sections: { key: string }[] };
    expect(report.sections.map((s) => s.key)).toEqual(['web', 'providers', 'tools', 'memory', 'policy', 'gateway', 'discord', 'scheduler', 'runtime']);
    expect(report.overall).not.toBe('error');

    writeFileSync(join(dir, 'config.yaml'), 'api:\n  api_key: ""\n');
    const broken = spawnSync(process.execPath, [BIN, 'doctor', '--home', dir], { env: env() });
    expect(broken.status).toBe(1);
    expect(broken.stdout.toString()).toMatch(/error +api_key: no API key is configured/);
    expect(broken.stdout.toString()).toContain('fix: set api.api_key');
  });
});

describe('agentd audit verify', () => {
  it('exits 0 on an intact chain and 1 naming the first broken event', async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentd-cli-'));
    const storage = new SqliteStorage(join(dir, 'agentd.db'));
    const audit = new AuditLog(storage.audit);
    for (let i = 0; i < 3; i++) await audit.emit({ event_type: 'x', category: 't', result: 'allow', detail: { i } });
    await storage.close();
    const good = spawnSync(process.execPath, [BIN, 'audit', 'verify', '--home', dir], { env: env() });
    expect(good.status).toBe(0);
    expect(good.stdout.toString()).toContain('3 events verified');

    const tamper = new Database(join(dir, 'agentd.db'));
    tamper.db.prepare("UPDATE audit_events SET event_type = 'forged' WHERE seq = 2").run();
    tamper.close();
    const bad = spawnSync(process.execPath, [BIN, 'audit', 'verify', '--home', dir], { env: env() });
    expect(bad.status).toBe(1);
    expect(bad.stdout.toString()).toMatch(/BROKEN at event #2/);
  });
});

describe('durability', () => {
  it('loses no acknowledged audit event when the process is killed with SIGKILL', async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentd-kill-'));
    const script = `
      const { createApp } = await import(${JSON.stringify(DIST_INDEX)});
      const app = await createApp({ home: ${JSON.stringify(dir)}, config: { api: { api_key: 'k', port: 0 } }, env: {} });
      // An event counts as acknowledged once its emit resolved (it has committed); 50 share a commit.
      for (let i = 50; ; i += 50) {
        await Promise.all(Array.from({ length: 50 }, (_, k) =>
          app.audit.emit({ event_type: 'durability.probe', category: 'test', result: 'allow', detail: { i: i - k } })));
        process.stdout.write('ack ' + i + '\\n');
      }`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { env: env() });
    let acked = 0;
    await new Promise<void>((res) => {
      child.stdout.on('data', (chunk: Buffer) => {
        const matches = [...chunk.toString().matchAll(/ack (\d+)/g)];
        const last = matches.at(-1);
        if (last?.[1]) acked = Number(last[1]);
        if (acked >= 500) {
          child.kill('SIGKILL');
          res();
        }
      });
    });
    await new Promise((r) => child.on('exit', r));
    const db = new Database(join(dir, 'agentd.db'));
    const stored = db.db.prepare("SELECT count(*) AS n FROM audit_events WHERE event_type = 'durability.probe'").get() as { n: number };
    expect(stored.n).toBeGreaterThanOrEqual(acked);
    db.close();
    expect(await verifyChain(join(dir, 'agentd.db'))).toBe(true);
  });

  it('loses no audit event of an acknowledged 2xx API call when agentd serve is killed with SIGKILL', async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentd-kill-http-'));
    writeFileSync(join(dir, 'config.yaml'), 'api:\n  api_key: kill-test-key\n  rate_limit_rpm: 100000\n', { mode: 0o600 });
    const proc = serve(dir);
    const url = await proc.ready;
    const auth = { authorization: 'Bearer kill-test-key', 'content-type': 'application/json' };
    const chat = (await (await fetch(`${url}/api/v1/chat`, { method: 'POST', headers: auth, body: JSON.stringify({ message: 'hello there' }) })).json()) as {
      data: { session_id: string };
    };
    const history = (await (await fetch(`${url}/api/v1/sessions/${chat.data.session_id}/history`, { headers: auth })).json()) as {
      data: { turns: { id: string }[] };
    };
    const turnId = history.data.turns[0]!.id;
    let acked = 0;
    for (let i = 0; i < 30; i++) {
      const res = await fetch(`${url}/api/v1/memory/turns/${turnId}/pin`, { method: 'POST', headers: auth, body: JSON.stringify({ pinned: i % 2 === 0 }) });
      expect(res.status).toBe(200);
      acked++;
    }
    // Killed the instant the last 2xx arrived: no graceful shutdown, no checkpoint.
    proc.child.kill('SIGKILL');
    await proc.exited;

    const db = new Database(join(dir, 'agentd.db'));
    const pins = db.db.prepare("SELECT count(*) AS n FROM audit_events WHERE event_type = 'web.memory'").get() as { n: number };
    expect(pins.n).toBe(acked);
    const turn = db.db.prepare('SELECT pinned FROM turns WHERE id = ?').get(turnId) as { pinned: number };
    expect(turn.pinned).toBe(0); // the last acknowledged call unpinned it (i = 29)
    db.close();
    expect(await verifyChain(join(dir, 'agentd.db'))).toBe(true);
  });
});

async function verifyChain(file: string): Promise<boolean> {
  const storage = new SqliteStorage(file);
  try {
    return (await new AuditLog(storage.audit).verify()).ok;
  } finally {
    await storage.close();
  }
}
