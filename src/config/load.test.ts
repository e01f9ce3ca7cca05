import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from './errors.js';
import { loadConfig, parseConfig } from './load.js';
import { configJsonSchema } from './schema.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));
const tmp = () => (dir = mkdtempSync(join(tmpdir(), 'agentd-config-')));

describe('config', () => {
  it('fills every default of the documented example', () => {
    tmp();
    const config = parseConfig({});
    expect(config.api).toEqual({
      host: '127.0.0.1', port: 8080, api_key: '', rate_limit_rpm: 60, web_session_ttl_seconds: 28800,
      cookie_name: 'service_operator_session', trust_proxy: false,
    });
    expect(config.providers.default).toBe('offline');
    expect(config.providers.anthropic.api_key_env).toBe('ANTHROPIC_API_KEY');
    expect(config.network.default_deny).toBe(true);
    expect(config.webhook.port).toBe(9090);
    expect(config.max_spend_usd).toBe(0);
  });

  it.each([
    [{ api: { rate_limt_rpm: 5 } }, /unknown config key "api.rate_limt_rpm"/],
    [{ extra: 1 }, /unknown config key "extra"/],
    [{ api: { port: 'eighty' } }, /"api.port"/],
    [{ api: { port: 70000 } }, /"api.port"/],
    [{ network: { presets: ['gitlab'] } }, /"network.presets.0"/],
    [{ network: { rest_policies: [{ host: 'a', method: 'GET', path: '/x', action: 'maybe' }] } }, /"network.rest_policies.0.action"/],
    [{ max_spend_usd: -1 }, /"max_spend_usd"/],
    [{ api: { web_session_ttl_seconds: 0 } }, /"api.web_session_ttl_seconds"/],
    [{ api: { web_session_ttl_seconds: 1.5 } }, /"api.web_session_ttl_seconds"/],
    [{ providers: { openai: { model: 'x', base_url: 'ftp://nope' } } }, /"providers.openai.base_url"/],
    [{ storage: { redis_url: 'http://cache:6379' } }, /"storage.redis_url": a URL starting with redis:\/\/ or rediss:\/\//],
    [{ storage: { redis_host: 'cache' } }, /unknown config key "storage.redis_host"/],
  ])('names the key in the error for %j', (raw, pattern) => {
    tmp();
    expect(() => parseConfig(raw)).toThrow(ConfigError);
    expect(() => parseConfig(raw)).toThrow(pattern);
  });

  it('accepts any positive web session TTL, down to one second (expiry can be tried by hand)', () => {
    tmp();
    expect(parseConfig({ api: { web_session_ttl_seconds: 1 } }).api.web_session_ttl_seconds).toBe(1);
  });

  it('bootstraps a config with a fresh key, home 0700 and file 0600', () => {
    const home = join(tmp(), 'home');
    const first = loadConfig({ home, env: {}, bootstrap: true });
    expect(first.bootstrapKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(first.config.api.api_key).toBe(first.bootstrapKey);
    expect(statSync(home).mode & 0o777).toBe(0o700);
    expect(statSync(first.configPath).mode & 0o777).toBe(0o600);
    const second = loadConfig({ home, env: {}, bootstrap: true });
    expect(second.bootstrapKey).toBeNull();
    expect(second.config.api.api_key).toBe(first.bootstrapKey);
  });

  it('lets SERVICE_API_KEY override the file and refuses a missing file without bootstrap', () => {
    const home = tmp();
    expect(() => loadConfig({ home, env: {} })).toThrow(/does not exist/);
    writeFileSync(join(home, 'config.yaml'), 'api:\n  api_key: from-file\n');
    expect(loadConfig({ home, env: {} }).config.api.api_key).toBe('from-file');
    const overridden = loadConfig({ home, env: { SERVICE_API_KEY: 'from-env' } });
    expect(overridden.config.api.api_key).toBe('from-env');
    expect(overridden.apiKeyFromEnv).toBe(true);
    expect(readFileSync(join(home, 'config.yaml'), 'utf8')).toContain('from-file');
  });

  it('takes the Redis URL from the file or REDIS_URL (which wins), and never repeats a refused one', () => {
    const home = tmp();
    expect(loadConfig({ home: tmp(), env: {}, bootstrap: true }).config.storage.redis_url).toBeNull();
    writeFileSync(join(home, 'config.yaml'), 'storage:\n  redis_url: redis://cache-a:6379/0\n');
    expect(loadConfig({ home, env: {} }).config.storage.redis_url).toBe('redis://cache-a:6379/0');
    expect(loadConfig({ home, env: { REDIS_URL: 'rediss://:pw@cache-b:6380/2' } }).config.storage.redis_url).toBe('rediss://:pw@cache-b:6380/2');
    const refused = () => loadConfig({ home, env: { REDIS_URL: 'cache-b:6380 with s3cret-pass' } });
    expect(refused).toThrow(/"storage.redis_url": a URL starting with redis:\/\/ or rediss:\/\//);
    expect(refused).not.toThrow(/s3cret-pass/);
  });

  it('reports invalid YAML as a config error', () => {
    const home = tmp();
    writeFileSync(join(home, 'config.yaml'), 'api: [unclosed\n');
    expect(() => loadConfig({ home, env: {} })).toThrow(/not valid YAML/);
  });

  it('reads network.interactive_approval as off, terminal or api, with true meaning terminal', () => {
    expect(parseConfig({}).network.interactive_approval).toBe('off');
    expect(parseConfig({ network: { interactive_approval: true } }).network.interactive_approval).toBe('terminal');
    expect(parseConfig({ network: { interactive_approval: false } }).network.interactive_approval).toBe('off');
    expect(parseConfig({ network: { interactive_approval: 'api' } }).network.interactive_approval).toBe('api');
    expect(() => parseConfig({ network: { interactive_approval: 'yes' } })).toThrow(ConfigError);
    const config = parseConfig({ tools: { require_approval: ['calculator'] }, approval_timeout_seconds: 5 });
    expect([config.tools.require_approval, config.approval_timeout_seconds, parseConfig({}).approval_timeout_seconds]).toEqual([['calculator'], 5, 300]);
  });

  it('exports a JSON Schema that knows every section', () => {
    tmp();
    const schema = configJsonSchema() as { properties: Record<string, unknown>; additionalProperties: boolean };
    expect(Object.keys(schema.properties).sort()).toEqual(['api', 'approval_hash_key', 'approval_timeout_seconds', 'discord', 'max_spend_usd', 'mcp', 'memory', 'network', 'providers', 'retention', 'storage', 'tools', 'webhook']);
    expect(schema.additionalProperties).toBe(false);
  });
});

describe('storage config', () => {
  it('defaults to SQLite with no URLs, so a user who configures nothing sees no change', () => {
    expect(parseConfig({}).storage).toEqual({ backend: 'sqlite', postgres_url: null, postgres_pool_size: 10, redis_url: null, redis_key_prefix: 'agentd:' });
  });

  it('takes DATABASE_URL and REDIS_URL over the file', () => {
    const home = tmp();
    writeFileSync(join(home, 'config.yaml'), 'storage:\n  backend: postgres\n  postgres_url: postgres://file@h/db\n');
    expect(loadConfig({ home, env: {} }).config.storage.postgres_url).toBe('postgres://file@h/db');
    const { storage } = loadConfig({ home, env: { DATABASE_URL: 'postgres://env@h/db', REDIS_URL: 'redis://127.0.0.1:6379' } }).config;
    expect(storage).toMatchObject({ backend: 'postgres', postgres_url: 'postgres://env@h/db', redis_url: 'redis://127.0.0.1:6379' });
  });

  it('takes storage.redis_key_prefix, and refuses an empty one or one with spaces, naming the key', () => {
    expect(parseConfig({ storage: { redis_key_prefix: 'team-b:agentd:' } }).storage.redis_key_prefix).toBe('team-b:agentd:');
    for (const prefix of ['', 'two words:', 'x'.repeat(65)]) {
      expect(() => parseConfig({ storage: { redis_key_prefix: prefix } })).toThrow(/"storage.redis_key_prefix": 1 to 64 printable characters without spaces/);
    }
  });

  it('refuses the postgres backend without a URL, and a malformed URL without repeating it', () => {
    const home = tmp();
    writeFileSync(join(home, 'config.yaml'), 'storage:\n  backend: postgres\n');
    expect(() => loadConfig({ home, env: {} })).toThrow(/storage.postgres_url or DATABASE_URL/);
    const malformed = () => loadConfig({ home, env: { DATABASE_URL: 'mysql://root:hunter2@h/db' } });
    expect(malformed).toThrow(/"storage.postgres_url": a URL starting with postgres:\/\/ or postgresql:\/\//);
    expect(malformed).not.toThrow(/hunter2/);
  });
});

describe('mcp config', () => {
  it('takes HTTP and stdio servers with their defaults', () => {
    const { servers } = parseConfig({ mcp: { servers: [{ name: 'web', url: 'https://mcp.example.com/mcp' }, { name: 'notes', command: '/usr/local/bin/notes', env_allow: ['NOTES_TOKEN'] }] } }).mcp;
    expect(servers).toEqual([
      { name: 'web', url: 'https://mcp.example.com/mcp', command: null, args: [], env_allow: [], allowed_tools: [], pin: true },
      { name: 'notes', url: null, command: '/usr/local/bin/notes', args: [], env_allow: ['NOTES_TOKEN'], allowed_tools: [], pin: true },
    ]);
    expect(parseConfig({}).mcp.servers).toEqual([]);
  });

  it.each([
    [{ name: 'x', command: 'notes' }, /command.*an absolute path/],
    [{ name: 'x' }, /exactly one of url or command/],
    [{ name: 'x', url: 'https://a.example/mcp', command: '/bin/x' }, /exactly one of url or command/],
    [{ name: 'x', url: 'ftp://a.example/mcp' }, /url/],
    [{ name: 'x', url: 'https://a.example/mcp', env_allow: ['HOME'] }, /args and env_allow apply only to a command/],
    [{ name: 'a.b', command: '/bin/x' }, /name.*1-24 letters, digits or -/],
    [{ name: 'a_b', command: '/bin/x' }, /name/],
    [{ name: 'x', command: '/bin/x', env_allow: ['NOT A NAME'] }, /an environment variable name/],
    [{ name: 'x', command: '/bin/x', shell: true }, /shell/],
  ])('refuses %j', (server, pattern) => {
    expect(() => parseConfig({ mcp: { servers: [server] } })).toThrow(pattern);
  });

  it('refuses two servers with one name', () => {
    expect(() => parseConfig({ mcp: { servers: [{ name: 'x', command: '/bin/x' }, { name: 'x', command: '/bin/y' }] } })).toThrow(/server names must be unique/);
  });
});

describe('discord config', () => {
  it('is off and allows no one by default', () => {
    const { discord } = parseConfig({});
    expect(discord).toMatchObject({ enabled: false, token_env: 'DISCORD_BOT_TOKEN', allowed_users: [], respond_to: 'mentions', session_per: 'channel' });
  });

  it('refuses an enabled channel that allows no one, naming the lists', () => {
    expect(() => parseConfig({ discord: { enabled: true } })).toThrow(/discord\.enabled needs at least one of allowed_guilds, allowed_channels or allowed_users/);
    expect(parseConfig({ discord: { enabled: true, allowed_users: ['123'] } }).discord.enabled).toBe(true);
  });

  it('counts a repeated id once and refuses ids that are not snowflakes', () => {
    expect(parseConfig({ discord: { allowed_channels: ['42', '42'] } }).discord.allowed_channels).toEqual(['42']);
    expect(() => parseConfig({ discord: { allowed_users: ['__proto__'] } })).toThrow(/a Discord id/);
    expect(() => parseConfig({ discord: { allowed_users: ['１２３'] } })).toThrow(/a Discord id/);
    expect(() => parseConfig({ discord: { token: 'secret' } })).toThrow(/token/);
  });
});
