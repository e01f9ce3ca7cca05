import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GENESIS_HASH } from '../src/storage/ports/audit-chain.js';
import { AuditLog } from '../src/audit/log.js';
import { SqliteStorage } from '../src/storage/sqlite/index.js';
import { BIN } from './helpers/cli.js';

// `agentd audit export` and `agentd audit verify FILE`, run from the build as an operator would.
let dir: string;
const START = Date.parse('2026-01-05T10:00:00.000Z');

function agentd(args: string[], input?: string) {
  const { SERVICE_API_KEY: _ignored, ...env } = process.env;
  const run = spawnSync(process.execPath, [BIN, ...args], { env, input, maxBuffer: 64 * 1024 * 1024 });
  return { status: run.status, stdout: run.stdout.toString(), stderr: run.stderr.toString() };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agentd-audit-cli-'));
  const storage = new SqliteStorage(join(dir, 'agentd.db'));
  let clock = START;
  const audit = new AuditLog(storage.audit, () => clock);
  for (let i = 0; i < 6_000; i++) {
    // Long enough that the export is written in many chunks.
    void audit.emit({ event_type: 'web.login', category: 'web', result: i % 3 ? 'allow' : 'deny', detail: { i, note: 'x'.repeat(100), github_token: 'ghp_secret' } });
    clock += 60_000;
  }
  await audit.emit({ event_type: 'last', category: 'test', result: 'allow' });
  await storage.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('agentd audit export', () => {
  it('writes the redacted chain as JSON lines that agentd audit verify checks offline', () => {
    const exported = agentd(['audit', 'export', '--home', dir]);
    expect(exported.status).toBe(0);
    const lines = exported.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(6_001);
    const first = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(first).toMatchObject({ event_type: 'web.login', result: 'deny', prev_hash: GENESIS_HASH, detail: { i: 0, github_token: '[REDACTED]' } });
    expect(exported.stdout).not.toContain('ghp_secret');
    const file = join(dir, 'export.jsonl');
    writeFileSync(file, exported.stdout);

    const verified = agentd(['audit', 'verify', file]);
    expect(verified.status).toBe(0);
    expect(verified.stdout).toMatch(/^audit export ok: 6001 events verified; it starts with the log; last hash [0-9a-f]{64}/);
    // Standard input works too.
    expect(agentd(['audit', 'verify', '-'], exported.stdout).stdout).toContain('6001 events verified');
  });

  it('exports a time range, which verifies on its own and says where it continues from', () => {
    const exported = agentd(['audit', 'export', '--home', dir, '--since', '2026-01-05T12:00:00+01:00', '--until', '2026-01-05T11:10:00Z']);
    expect(exported.status).toBe(0);
    const events = exported.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as { timestamp: string; detail: { i: number } });
    expect(events.map((e) => e.detail.i)).toEqual([60, 61, 62, 63, 64, 65, 66, 67, 68, 69]);
    const verified = agentd(['audit', 'verify', '-'], exported.stdout);
    expect(verified.status).toBe(0);
    expect(verified.stdout).toMatch(/10 events verified; it continues from [0-9a-f]{64}/);
  });

  it('detects a tampered line and exits 1 naming it', () => {
    const lines = readFileSync(join(dir, 'export.jsonl'), 'utf8').trimEnd().split('\n');
    const event = JSON.parse(lines[41]!) as { result: string };
    event.result = event.result === 'deny' ? 'allow' : 'deny';
    lines[41] = JSON.stringify(event);
    const verified = agentd(['audit', 'verify', '-'], `${lines.join('\n')}\n`);
    expect(verified.status).toBe(1);
    expect(verified.stdout).toMatch(/^audit export BROKEN at line 42 \(evt_\S+\): hash does not match the content/);
    const removed = agentd(['audit', 'verify', '-'], `${lines.filter((_, i) => i !== 7).join('\n')}\n`);
    expect(removed.status).toBe(1);
    expect(removed.stdout).toContain('BROKEN at line 8');
  });

  it('refuses a time it cannot read and a format it does not write', () => {
    const badTime = agentd(['audit', 'export', '--home', dir, '--since', '2026-01-05']);
    expect(badTime.status).not.toBe(0);
    expect(badTime.stderr).toContain("option '--since <time>' argument '2026-01-05' is invalid");
    const badFormat = agentd(['audit', 'export', '--home', dir, '--format', 'csv']);
    expect(badFormat.status).not.toBe(0);
    expect(badFormat.stderr).toContain('must be one of jsonl');
  });

  it('still verifies the database when given no file', () => {
    const verified = agentd(['audit', 'verify', '--home', dir]);
    expect(verified.status).toBe(0);
    expect(verified.stdout).toContain('audit chain ok: 6001 events verified');
  });
});
