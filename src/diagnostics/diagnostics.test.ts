import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../config/load.js';
import { runDiagnostics, type DiagnosticsInput } from './index.js';
import { postgresHealth, type PostgresFacts } from '../storage/postgres/health.js';
import { sqliteHealth, type SqliteFacts } from '../storage/sqlite/health.js';

const MB = 1_048_576;
const GB = 1024 * MB;

const NOW = Date.parse('2026-02-01T00:00:00.000Z');
let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const sqliteFacts = (location: string): SqliteFacts => ({
  location, sizeBytes: 4096, journalMode: 'wal', integrity: null,
  space: { freeBytes: 50 * GB, totalBytes: 100 * GB }, writable: true, lastWriteFailure: null,
});

function input(overrides: Partial<DiagnosticsInput> = {}, config: Record<string, unknown> = { api: { api_key: 'k' } }): DiagnosticsInput {
  dir = mkdtempSync(join(tmpdir(), 'agentd-diag-'));
  const configPath = join(dir, 'config.yaml');
  writeFileSync(configPath, '', { mode: 0o600 });
  return {
    config: parseConfig(config), home: dir, configPath, apiKeyFromEnv: false,
    providers: [{ name: 'offline', model: 'offline', available: true, is_default: true, reason: null }],
    tools: ['current_time', 'calculator'], memory: { turnCount: 3 }, webhook: null,
    storage: sqliteHealth(sqliteFacts(join(dir, 'agentd.db'))),
    scheduler: { jobs: [], firing: true, now: Date.parse('2026-01-10T00:00:00.000Z') },
    runtime: { nodeVersion: 'v20.18.1', uptimeSeconds: 5, sessions: 0, runsInFlight: 0 }, stdinIsTty: false,
    audit: { stats: { count: 0, oldest: null, newest: null }, chain: { verdict: { ok: true, count: 0 }, checkedAt: NOW }, retentionDays: 365, now: NOW },
    redis: null, mcp: null, discord: null,
    approvals: { pending: 0, oldestCreatedAt: null },
    ...overrides,
  };
}

const find = (report: ReturnType<typeof runDiagnostics>, section: string, name: string) =>
  report.sections.find((s) => s.key === section)?.checks.find((c) => c.name === name);

describe('runDiagnostics', () => {
  it('reports all nine sections in order and ok overall for a sane setup', () => {
    const report = runDiagnostics(input());
    expect(report.sections.map((s) => s.key)).toEqual(['web', 'providers', 'tools', 'memory', 'policy', 'gateway', 'discord', 'scheduler', 'runtime']);
    expect(report.overall).toBe('ok');
    expect(report.counts.error).toBe(0);
  });

  it('is an error without an API key, with a remediation', () => {
    const report = runDiagnostics(input({}, { api: { api_key: '' } }));
    expect(report.overall).toBe('error');
    expect(find(report, 'web', 'api_key')).toMatchObject({ status: 'error', remediation: expect.stringContaining('SERVICE_API_KEY') });
  });

  it('flags an unavailable default provider as an error and other unavailable ones as warnings', () => {
    const report = runDiagnostics(input({
      providers: [
        { name: 'offline', model: 'offline', available: true, is_default: false, reason: null },
        { name: 'anthropic', model: 'claude', available: false, is_default: true, reason: 'set ANTHROPIC_API_KEY' },
        { name: 'openai', model: 'gpt', available: false, is_default: false, reason: 'set OPENAI_API_KEY' },
      ],
    }));
    expect(find(report, 'providers', 'anthropic')).toMatchObject({ status: 'error', remediation: 'set ANTHROPIC_API_KEY' });
    expect(find(report, 'providers', 'openai')?.status).toBe('warn');
  });

  it('does not call a provider ok when the network policy refuses its base URL, and names the rule that would allow it', () => {
    const openai = { name: 'openai', model: 'fake-model', available: true, is_default: true, reason: null };
    const on = (network: Record<string, unknown>, base_url = 'http://127.0.0.1:18111/v1') =>
      find(runDiagnostics(input({ providers: [openai] }, { api: { api_key: 'k' }, providers: { openai: { model: 'fake-model', base_url } }, network })), 'providers', 'openai');
    // Loopback, nothing allowed: the address rules refuse it (an operator could not allow it either).
    expect(on({})).toMatchObject({
      status: 'error',
      summary: expect.stringMatching(/fake-model configured, but the network policy refuses its base URL http:\/\/127\.0\.0\.1:18111 by its address rules \(loopback address 127\.0\.0\.1 is not allowed\)/),
      remediation: expect.stringContaining('network.provider_allowed_hosts (e.g. "127.0.0.1:18111")'),
    });
    // Allowed for tools only: still refused for the provider category.
    expect(on({ tool_allowed_hosts: ['127.0.0.1:18111'] })?.status).toBe('error');
    // The official host without its preset: refused by the host rules.
    expect(on({}, 'https://api.openai.com/v1')).toMatchObject({ status: 'error', summary: expect.stringContaining('host api.openai.com:443 is not allowed for category provider') });
    // Another port than the one allowed.
    expect(on({ provider_allowed_hosts: ['127.0.0.1:18112'] })?.status).toBe('error');
    expect(on({ provider_allowed_hosts: ['127.0.0.1:18111'] })).toMatchObject({ status: 'ok', summary: 'fake-model available (default)' });
    expect(on({ presets: ['openai'] }, 'https://api.openai.com/v1')?.status).toBe('ok');
    expect(on({ allowed_cidrs: ['127.0.0.0/8'] })?.status).toBe('ok');
    // Not the default: a warning.
    const other = runDiagnostics(input({ providers: [{ ...openai, is_default: false }] }, { api: { api_key: 'k' }, providers: { openai: { model: 'm', base_url: 'http://[::1]:9/' } } }));
    expect(find(other, 'providers', 'openai')).toMatchObject({ status: 'warn', summary: expect.stringContaining('loopback address ::1') });
  });

  it('checks the webhook bind and secret', () => {
    const listening = { enabled: true, listening: true, host: '0.0.0.0', port: 9090, secretSet: false };
    const open = runDiagnostics(input({ webhook: listening }));
    expect(find(open, 'web', 'webhook_bind')?.status).toBe('ok');
    expect(find(open, 'web', 'webhook_secret')?.status).toBe('error');
    const signed = runDiagnostics(input({ webhook: { ...listening, secretSet: true } }));
    expect(find(signed, 'web', 'webhook_secret')?.status).toBe('ok');
    const down = runDiagnostics(input({ webhook: { ...listening, listening: false } }));
    expect(find(down, 'web', 'webhook_bind')?.status).toBe('error');
  });

  it('reports the Discord connection, its policy and its allow lists', () => {
    const off = runDiagnostics(input());
    expect(find(off, 'discord', 'channel')?.summary).toBe('Discord channel not enabled');
    const config = { api: { api_key: 'k' }, network: { presets: ['discord'] }, discord: { enabled: true, allowed_users: ['42'], allowed_channels: ['7', '8'] } };
    const connected = { state: 'connected' as const, lastError: null, user: { id: '99', username: 'bot' }, guildCount: 3, heartbeatLatencyMs: 41 };
    const up = runDiagnostics(input({ discord: connected }, config));
    expect(find(up, 'discord', 'connection')).toMatchObject({ status: 'ok', summary: 'connected as bot (99) in 3 guild(s)' });
    expect(find(up, 'discord', 'heartbeat')?.summary).toBe('last heartbeat acknowledged in 41 ms');
    expect(find(up, 'discord', 'network_policy')?.status).toBe('ok');
    expect(find(up, 'discord', 'allowed')?.summary).toBe('guilds: none; channels: 7, 8; users: 42');
    const failed = runDiagnostics(input({ discord: { ...connected, state: 'failed', lastError: 'Discord closed the connection with 4014: disallowed intents' } }, config));
    expect(find(failed, 'discord', 'connection')).toMatchObject({ status: 'error', summary: 'not connected: Discord closed the connection with 4014: disallowed intents' });
    const standby = runDiagnostics(input({ discord: { ...connected, state: 'standby' } }, config));
    expect(find(standby, 'discord', 'connection')?.summary).toMatch(/another replica holds/);
    const denied = runDiagnostics(input({ discord: connected }, { ...config, network: {} }));
    expect(find(denied, 'discord', 'network_policy')).toMatchObject({ status: 'error', summary: expect.stringContaining('refuses the Discord API at discord.com') });
  });

  it('warns about readable config files, non-loopback binds and default_deny off', () => {
    const base = input({}, { api: { api_key: 'k', host: '0.0.0.0' }, network: { default_deny: false } });
    chmodSync(base.configPath!, 0o644);
    const report = runDiagnostics(base);
    expect(find(report, 'runtime', 'config_file')?.status).toBe('warn');
    expect(find(report, 'web', 'bind')?.status).toBe('warn');
    expect(find(report, 'policy', 'default_deny')?.status).toBe('warn');
    expect(report.overall).toBe('warn');
  });

  it('warns about approvals left waiting, a misspelt tools.require_approval name and a terminal prompt without a terminal', () => {
    const quiet = runDiagnostics(input({}, { api: { api_key: 'k' }, tools: { require_approval: ['calculator'] } }));
    expect([find(quiet, 'policy', 'approvals'), find(quiet, 'tools', 'require_approval')]).toEqual([undefined, undefined]);
    const report = runDiagnostics(input(
      { approvals: { pending: 2, oldestCreatedAt: '2026-01-31T23:00:00.000Z' } },
      { api: { api_key: 'k' }, tools: { require_approval: ['calculater'] }, network: { interactive_approval: true } },
    ));
    expect(find(report, 'policy', 'approvals')).toMatchObject({ status: 'warn', summary: expect.stringContaining('2 request(s) wait') });
    expect(find(report, 'tools', 'require_approval')).toMatchObject({ status: 'warn', summary: expect.stringContaining('calculater') });
    expect(find(report, 'policy', 'interactive_approval')).toMatchObject({ status: 'warn', remediation: expect.stringContaining('interactive_approval: api') });
    const api = runDiagnostics(input({}, { api: { api_key: 'k' }, network: { interactive_approval: 'api' } }));
    expect(find(api, 'policy', 'interactive_approval')).toMatchObject({ status: 'ok' });
  });

  describe('the PostgreSQL check', () => {
    const postgres = (overrides: Partial<PostgresFacts>): DiagnosticsInput => input({
      storage: postgresHealth({
        location: 'postgres://agentd:***@db:5432/agentd', reachable: true, problem: null, version: '15.4',
        sizeBytes: 8 * MB, migrations: { applied: 4, latest: 4 }, ...overrides,
      }),
    });

    it('is ok when reachable and current, naming the server without its password', () => {
      expect(find(runDiagnostics(postgres({})), 'memory', 'database')).toEqual({
        name: 'database', status: 'ok', summary: 'PostgreSQL 15.4 at postgres://agentd:***@db:5432/agentd (8.0 MB), schema version 4 (current)',
      });
    });

    it('is an error when unreachable or behind this build, a warning when ahead', () => {
      const down = runDiagnostics(postgres({ reachable: false, problem: 'connect ECONNREFUSED 10.0.0.5:5432', version: null, migrations: null }));
      expect(find(down, 'memory', 'database')).toMatchObject({ status: 'error', summary: expect.stringContaining('unreachable (connect ECONNREFUSED 10.0.0.5:5432)') });
      expect(down.overall).toBe('error');
      expect(find(runDiagnostics(postgres({ migrations: { applied: 3, latest: 4 } })), 'memory', 'database'))
        .toMatchObject({ status: 'error', remediation: expect.stringContaining('agentd migrate') });
      expect(find(runDiagnostics(postgres({ migrations: { applied: 5, latest: 4 } })), 'memory', 'database')?.status).toBe('warn');
    });
  });

  describe('the storage check', () => {
    const storage = (overrides: Partial<SqliteFacts>) => {
      const base = input();
      return { ...base, storage: sqliteHealth({ ...sqliteFacts(base.storage.location), ...overrides }) };
    };

    it('is ok with room to spare, and says how much', () => {
      const report = runDiagnostics(input());
      expect(find(report, 'memory', 'storage')).toEqual({ name: 'storage', status: 'ok', summary: '50.0 GB free (50.0 %) on the filesystem of the database' });
    });

    it('warns under 5 % free, and under 100 MB free on a small disk', () => {
      const share = runDiagnostics(storage({ space: { freeBytes: 4 * GB, totalBytes: 100 * GB } }));
      expect(find(share, 'memory', 'storage')).toMatchObject({ status: 'warn', summary: expect.stringMatching(/^only 4096\.0 MB free \(4\.0 %\)/), remediation: expect.stringContaining('507') });
      const bytes = runDiagnostics(storage({ space: { freeBytes: 99 * MB, totalBytes: 1 * GB } }));
      expect(find(bytes, 'memory', 'storage')?.status).toBe('warn');
      const enough = runDiagnostics(storage({ space: { freeBytes: 101 * MB, totalBytes: 1 * GB } }));
      expect(find(enough, 'memory', 'storage')?.status).toBe('ok');
      expect(enough.overall).toBe('ok');
    });

    it('is an error while writes fail, naming the time and the reason', () => {
      const report = runDiagnostics(storage({ lastWriteFailure: { at: '2026-05-01T10:00:00.000Z', reason: 'the storage is full' } }));
      expect(find(report, 'memory', 'storage')).toMatchObject({
        status: 'error',
        summary: expect.stringContaining('failed at 2026-05-01T10:00:00.000Z (the storage is full)'),
        remediation: expect.stringContaining('no restart needed'),
      });
      expect(report.overall).toBe('error');
    });

    it('warns that a read-only folder can be inspected but not served', () => {
      const report = runDiagnostics(storage({ writable: false }));
      expect(find(report, 'memory', 'storage')).toMatchObject({ status: 'warn', summary: expect.stringContaining('read-only') });
    });
  });
  it('checks Redis only when it is configured: reachable with version and latency, slow, or unreachable (503s)', () => {
    expect(find(runDiagnostics(input()), 'runtime', 'redis')).toBeUndefined();
    const target = 'redis://cache:6379/0';
    const ok = find(runDiagnostics(input({ redis: { target, reachable: true, version: '7.0.15', latencyMs: 0.4, error: null } })), 'runtime', 'redis');
    expect(ok).toEqual({ name: 'redis', status: 'ok', summary: 'Redis 7.0.15 at redis://cache:6379/0, PING 0.4 ms' });
    const slow = find(runDiagnostics(input({ redis: { target, reachable: true, version: '7.0.15', latencyMs: 120, error: null } })), 'runtime', 'redis');
    expect(slow?.status).toBe('warn');
    const down = runDiagnostics(input({ redis: { target, reachable: false, version: null, latencyMs: null, error: 'connect ECONNREFUSED' } }));
    expect(find(down, 'runtime', 'redis')).toMatchObject({ status: 'error', summary: expect.stringContaining('unreachable (connect ECONNREFUSED)') });
    expect(down.overall).toBe('error');
  });
});
