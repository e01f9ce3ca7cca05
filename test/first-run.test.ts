import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';
import { BIN, spawnServe } from './helpers/cli.js';

// The built CLI (`npm test` builds first), run as an operator would, on temporary homes.
let dir: string;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  rmSync(dir, { recursive: true, force: true });
});

function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const { SERVICE_API_KEY: _a, ANTHROPIC_API_KEY: _b, OPENAI_API_KEY: _c, AGENTD_HOME: _d, ...rest } = process.env;
  return { ...rest, ...extra };
}

function agentd(args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  const run = spawnSync(process.execPath, [BIN, ...args], { env: env(extraEnv), timeout: 20_000 });
  return { status: run.status, stdout: run.stdout.toString(), stderr: run.stderr.toString() };
}

/** `agentd serve` in the background; resolves with the URL once the ready line is printed. */
function serve(args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  const proc = spawnServe(args, env(extraEnv));
  const { child, exited } = proc;
  cleanups.push(async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
  });
  return proc;
}

async function takenPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
  return { port: (server.address() as { port: number }).port, server };
}

const NO_STACK = /^\s+at /m;

describe('a first start whose port is taken', () => {
  it('prints the new key, names the options that change the port, and leaves no lock or WAL behind', async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentd-first-'));
    const home = join(dir, 'home');
    const { port } = await takenPort();
    const run = agentd(['serve', '--home', home, '--port', String(port)]);
    expect(run.status).toBe(1);
    const key = /API key: (\S+)/.exec(run.stdout)?.[1];
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(readFileSync(join(home, 'config.yaml'), 'utf8')).toContain(`api_key: ${key}`);
    expect(run.stdout).not.toContain('listening');
    expect(run.stderr).toContain(`127.0.0.1:${port}`);
    expect(run.stderr).toContain('already in use');
    expect(run.stderr).toContain('--port');
    expect(run.stderr).toContain('api.port');
    expect(run.stderr).not.toMatch(NO_STACK);
    expect(existsSync(join(home, 'agentd.lock'))).toBe(false);
    expect(existsSync(join(home, 'agentd.db-wal'))).toBe(false);
    expect(existsSync(join(home, 'agentd.db-shm'))).toBe(false);
    expect(existsSync(join(home, 'agentd.url'))).toBe(false);

    // The next start (on a free port) serves with that key and does not print it again.
    const again = serve(['--home', home, '--port', '0']);
    const url = await again.ready;
    expect(again.stdout()).not.toContain('API key:');
    expect((await fetch(`${url}/api/v1/health`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
  });
});

describe('an unusable home or config file', () => {
  it('refuses a home below a regular file with one sentence naming the path and the fix', () => {
    // Tests run as root, whom chmod does not stop: a home below a regular file fails for root too.
    dir = mkdtempSync(join(tmpdir(), 'agentd-first-'));
    writeFileSync(join(dir, 'file'), 'x');
    const home = join(dir, 'file', 'sub');
    const run = agentd(['serve', '--home', home, '--port', '0']);
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain(`cannot use ${home} as the home folder: ${join(dir, 'file')} is a file`);
    expect(run.stderr).toContain('--home');
    expect(run.stderr).not.toMatch(/ENOTDIR|EEXIST/);
    expect(run.stdout).toBe('');
  });

  it('refuses a home that is a file', () => {
    dir = mkdtempSync(join(tmpdir(), 'agentd-first-'));
    const home = join(dir, 'file');
    writeFileSync(home, 'x');
    const run = agentd(['serve', '--home', home, '--port', '0']);
    expect(run.status).toBe(1);
    expect(run.stderr.trim()).toBe(`cannot use ${home} as the home folder: it is a file, not a folder; pass --home (or set AGENTD_HOME) to a folder you can write`);
    expect(readFileSync(home, 'utf8')).toBe('x');
  });

  it('refuses a missing --config file instead of writing one there', () => {
    dir = mkdtempSync(join(tmpdir(), 'agentd-first-'));
    const config = join(dir, 'elsewhere.yaml');
    const run = agentd(['serve', '--home', join(dir, 'home'), '--config', config, '--port', '0']);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`config file ${config} (given with --config) does not exist`);
    expect(run.stderr).toContain(`agentd init --config ${config}`);
    expect(existsSync(config)).toBe(false);
    expect(run.stdout).not.toContain('API key');
  });

  it('makes agentd doctor report them as failed checks naming the path', () => {
    dir = mkdtempSync(join(tmpdir(), 'agentd-first-'));
    writeFileSync(join(dir, 'file'), 'x');
    const home = join(dir, 'file', 'sub');
    const run = agentd(['doctor', '--home', home, '--json']);
    expect(run.status).toBe(1);
    expect(run.stderr).toBe('');
    const report = JSON.parse(run.stdout) as { overall: string; source: string; sections: { key: string; checks: { name: string; status: string; summary: string }[] }[] };
    expect(report.overall).toBe('error');
    expect(report.source).toBe('offline');
    const runtime = report.sections.find((s) => s.key === 'runtime')!;
    expect(runtime.checks).toEqual([{ name: 'home', status: 'error', summary: expect.stringContaining(`${join(dir, 'file')} is a file`) }]);

    const missing = agentd(['doctor', '--home', dir, '--config', join(dir, 'nope.yaml')]);
    expect(missing.status).toBe(1);
    expect(missing.stdout).toMatch(/error +config_file: config file .*nope\.yaml \(given with --config\) does not exist/);
  });
});

describe('agentd serve start-up messages', () => {
  it('warns when the default provider is unusable, naming the key variable', async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentd-first-'));
    writeFileSync(join(dir, 'config.yaml'), 'api:\n  api_key: k-provider\nproviders:\n  default: anthropic\n', { mode: 0o600 });
    const proc = serve(['--home', dir, '--port', '0', '--log-format', 'json']);
    await proc.ready;
    const warning = proc.stderr().split('\n').map((l) => (l ? (JSON.parse(l) as { level: string; msg: string }) : null)).find((l) => l?.msg.includes("default provider 'anthropic' is unusable"));
    expect(warning?.level).toBe('warn');
    expect(warning?.msg).toContain('ANTHROPIC_API_KEY');
  });

  it('logs the webhook listener with its URL', async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentd-first-'));
    writeFileSync(join(dir, 'config.yaml'), 'api:\n  api_key: k-hook\nwebhook:\n  enabled: true\n  port: 0\n  secret: s3cret-value\n', { mode: 0o600 });
    const proc = serve(['--home', dir, '--port', '0', '--log-format', 'json']);
    await proc.ready;
    const line = /webhook channel listening on (http:\/\/127\.0\.0\.1:(\d+)\/)/.exec(proc.stderr());
    expect(line).not.toBeNull();
    const answer = await fetch(line![1]!, { method: 'GET' });
    expect(answer.status).toBe(405); // that URL is the webhook's
    expect(proc.stderr()).toContain('webhook:<sender>');
  });

  it('writes JSON request lines by default and none below --log-level warn', async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentd-first-'));
    writeFileSync(join(dir, 'config.yaml'), 'api:\n  api_key: k-levels\n', { mode: 0o600 });
    const json = serve(['--home', dir, '--port', '0']);
    const url = await json.ready;
    await fetch(`${url}/api/v1/health`, { headers: { authorization: 'Bearer k-levels', 'x-request-id': 'cli-line-1' } });
    json.child.kill('SIGTERM');
    await json.exited;
    const records = json.stderr().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records.find((r) => r.request_id === 'cli-line-1')).toMatchObject({
      level: 'info', time: expect.any(Number), msg: 'request', method: 'GET', route: '/api/v1/health', status: 200,
    });
    expect(json.stderr()).not.toContain('k-levels');

    const quiet = serve(['--home', dir, '--port', '0', '--log-level', 'warn']);
    const quietUrl = await quiet.ready;
    await fetch(`${quietUrl}/api/v1/health`, { headers: { authorization: 'Bearer k-levels', 'x-request-id': 'cli-line-2' } });
    quiet.child.kill('SIGTERM');
    await quiet.exited;
    expect(quiet.stderr()).not.toContain('cli-line-2');

    const pretty = serve(['--home', dir, '--port', '0', '--log-format', 'pretty']);
    const prettyUrl = await pretty.ready;
    await fetch(`${prettyUrl}/api/v1/health`, { headers: { authorization: 'Bearer k-levels', 'x-request-id': 'cli-line-3' } });
    pretty.child.kill('SIGTERM');
    await pretty.exited;
    // Readable: a header line per record, its fields indented below, no JSON objects.
    expect(pretty.stderr()).toMatch(/INFO.*: request\n(\s+\w+: .*\n)*\s+request_id: "cli-line-3"/);
    expect(pretty.stderr().split('\n').some((l) => l.startsWith('{'))).toBe(false);
  });
});

describe('agentd doctor beside a running service', () => {
  it('reports the live service (real port, sessions) and says so; offline once it stopped', async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentd-first-'));
    writeFileSync(join(dir, 'config.yaml'), 'api:\n  api_key: k-live\n', { mode: 0o600 });
    const proc = serve(['--home', dir, '--port', '0']);
    const url = await proc.ready;
    expect(statSync(join(dir, 'agentd.url')).mode & 0o777).toBe(0o600);
    const headers = { authorization: 'Bearer k-live', 'content-type': 'application/json' };
    for (let i = 0; i < 2; i++) expect((await fetch(`${url}/api/v1/sessions`, { method: 'POST', headers, body: '{}' })).status).toBe(201);

    type Report = { source: string; source_detail: string; sections: { key: string; checks: { name: string; summary: string }[] }[] };
    const checkOf = (report: Report, section: string, name: string) => report.sections.find((s) => s.key === section)!.checks.find((c) => c.name === name)!.summary;
    const live = JSON.parse(agentd(['doctor', '--home', dir, '--json']).stdout) as Report;
    expect(live.source).toBe('live');
    expect(live.source_detail).toBe(url);
    expect(checkOf(live, 'runtime', 'activity')).toMatch(/, 2 sessions,/);
    expect(checkOf(live, 'web', 'bind')).toContain(`127.0.0.1:${new URL(url).port}`);
    expect(agentd(['doctor', '--home', dir]).stdout.split('\n')[0]).toBe(`live report from the service at ${url}`);

    proc.child.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
    expect(existsSync(join(dir, 'agentd.url'))).toBe(false);
    const offline = agentd(['doctor', '--home', dir]);
    expect(offline.stdout.split('\n')[0]).toBe(`offline report (no service is running on ${dir})`);
    expect(offline.stdout).toMatch(/activity: up 0 s, 0 sessions/);
  });

  it('falls back to the offline report when the service does not answer', async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentd-first-'));
    writeFileSync(join(dir, 'config.yaml'), 'api:\n  api_key: k-dead\n', { mode: 0o600 });
    const { port } = await takenPort(); // accepts connections, never answers HTTP
    // A live pid (this test runner) holds the lock and the URL points at a server that never answers.
    writeFileSync(join(dir, 'agentd.lock'), `${process.pid}\n`);
    writeFileSync(join(dir, 'agentd.url'), `http://127.0.0.1:${port}\n`);
    const closed = await startClosedPort();
    writeFileSync(join(dir, 'agentd.url'), `http://127.0.0.1:${closed}\n`);
    const run = agentd(['doctor', '--home', dir]);
    expect(run.stdout.split('\n')[0]).toMatch(new RegExp(`^offline report \\(the service at http://127\\.0\\.0\\.1:${closed} \\(pid ${process.pid}\\) did not answer: .+\\)$`));
    expect(run.status).toBe(0);
  });
});

/** A port nothing listens on (bound, then released). */
async function startClosedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

describe('provider failures', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('log the host and the cause; the 502 names the provider and the cause, never the key', async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentd-first-'));
    const port = await startClosedPort();
    const key = 'sk-test-openai-0123456789abcdefghijklmn';
    t = await startTestApp({
      env: { OPENAI_API_KEY: key },
      config: {
        providers: { openai: { api_key_env: 'OPENAI_API_KEY', model: 'gpt-4.1-mini', base_url: `http://127.0.0.1:${port}/v1` } },
        network: { allowed_hosts: [`127.0.0.1:${port}`] },
      },
    });
    const res = await t.request('/api/v1/chat', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'provider-down-1' },
      body: JSON.stringify({ message: 'hello', provider: 'openai' }),
    });
    expect(res.status).toBe(502);
    const body = (await res.json()) as { error: string };
    expect(body.error).toContain("provider 'openai'");
    expect(body.error).toBe(`provider 'openai' could not reach 127.0.0.1:${port}: connection refused (ECONNREFUSED)`);
    expect(body.error).not.toContain(key);
    const line = t.log.lines.find((l) => l.includes("provider 'openai' request to") && l.includes('request_id=provider-down-1'));
    expect(line).toContain(`127.0.0.1:${port}`);
    expect(line).toContain('failed (connection)');
    expect(line).toContain('connection refused (ECONNREFUSED)');
    expect(t.log.lines.join('\n')).not.toContain(key);
  });
});
