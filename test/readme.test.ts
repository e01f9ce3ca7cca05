import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { METRIC_FAMILIES } from '../src/http/resources/metrics/index.js';
import { HTML_SECURITY_HEADERS } from '../src/listener/headers.js';

const README = readFileSync('README.md', 'utf8');
const PKG = JSON.parse(readFileSync('package.json', 'utf8')) as { files: string[]; engines: { node: string } };

describe('README and package.json', () => {
  it('shows a KEY= line that reads the key a first run wrote', () => {
    const line = /^KEY=\$\(.*\)$/m.exec(README)?.[0];
    expect(line).toBeDefined();
    const home = mkdtempSync(join(tmpdir(), 'agentd-readme-'));
    try {
      const init = spawnSync(process.execPath, [resolve('bin/agentd.js'), 'init', '--home', join(home, '.agentd')]);
      const key = /API key \(shown only this once\): (\S+)/.exec(init.stdout.toString())?.[1];
      expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const got = execFileSync('sh', ['-c', `${line!}\nprintf %s "$KEY"`], { env: { PATH: process.env.PATH, HOME: home } }).toString();
      expect(got).toBe(key);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('lists 502 among the status codes and describes the CSP that is sent', () => {
    expect(README).toMatch(/\b502 the provider call failed/);
    expect(README).toContain(HTML_SECURITY_HEADERS['content-security-policy']);
  });

  it('ships only files that exist, and states the engines range', () => {
    // A `!pattern` leaves files out (the compiled code a start keeps beside the bundle).
    for (const entry of PKG.files.filter((pattern) => !pattern.startsWith('!'))) expect(existsSync(entry), entry).toBe(true);
    expect(PKG.files).toContain('!dist/server/*.v8cache');
    const min = /^>=(\d+\.\d+\.\d+)$/.exec(PKG.engines.node)?.[1];
    expect(min).toBeDefined();
    expect(README).toContain(`Node.js ≥ ${min}`);
  });

  it('lists every metric family GET /metrics serves', () => {
    for (const [family] of METRIC_FAMILIES) expect(README).toContain(`| \`${family}\` |`);
  });

  it('says where the answer to a webhook message goes', () => {
    expect(README).toContain('GET /api/v1/runs?session_id=webhook:<sender>');
  });

  it('names only agentd commands that exist', () => {
    // Every `agentd <command>` in code (spans and blocks), against the commands the built CLI lists.
    const code = [...README.matchAll(/```[\s\S]*?```|`[^`\n]+`/g)].map((m) => m[0]).join('\n');
    const named = new Set([...code.matchAll(/(?:(?<![/\w.-])agentd|bin\/agentd\.js) ([a-z][a-z-]*)/g)].map((m) => m[1]!));
    named.delete('listening'); // the ready line, `agentd listening on …`
    const help = execFileSync(process.execPath, [resolve('bin/agentd.js'), '--help']).toString();
    const commands = new Set([...help.matchAll(/^ {2}([a-z][a-z-]*)\b/gm)].map((m) => m[1]!));
    expect([...named].filter((command) => !commands.has(command))).toEqual([]);
    expect([...named]).toEqual(expect.arrayContaining(['serve', 'backup', 'migrate', 'doctor', 'audit']));
  });

  it('shows a systemd unit with its hardening, and proxies that pass run events on unbuffered', () => {
    const unit = /```ini\n([\s\S]*?)```/.exec(README)?.[1] ?? '';
    for (const option of ['NoNewPrivileges=true', 'ProtectSystem=strict', 'ReadWritePaths=/var/lib/agentd', 'PrivateTmp=true', 'ProtectHome=true', 'CapabilityBoundingSet=']) {
      expect(unit.split('\n'), option).toContain(option);
    }
    expect(unit).toMatch(/^ExecStart=.*bin\/agentd\.js serve\b/m);
    expect(README).toMatch(/```nginx[\s\S]*proxy_buffering off;[\s\S]*```/);
    expect(README).toMatch(/```caddyfile[\s\S]*flush_interval -1[\s\S]*```/);
  });
});
