import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config/load.js';
import { createMemoryLogger } from '../log.js';
import { logStartupChecks, startupChecks, type StartupFacts } from './startup-checks.js';

function facts(config: Record<string, unknown>, overrides: Partial<StartupFacts> = {}): StartupFacts {
  return {
    config: parseConfig(config), home: '/srv/agentd', hashKeySource: 'config', sharedStorage: false,
    defaultProvider: { name: 'offline', problem: null }, consoleMissing: [], ...overrides,
  };
}

const warnings = (input: StartupFacts) => startupChecks(input).filter((check) => check.status !== 'ok').map((check) => check.summary);

describe('startupChecks', () => {
  it('has nothing to warn about on a loopback service with a key and a usable default provider', () => {
    expect(warnings(facts({ api: { api_key: 'k' } }))).toEqual([]);
  });

  it('warns about each setting that works but needs the operator to know', () => {
    const found = warnings(facts(
      { api: { api_key: '', host: '0.0.0.0', trust_proxy: true, web_session_ttl_seconds: 60 }, storage: { backend: 'postgres', postgres_url: 'postgres://db/agentd' } },
      { hashKeySource: 'home', sharedStorage: true, defaultProvider: { name: 'anthropic', problem: 'set ANTHROPIC_API_KEY' }, consoleMissing: ['console.js'] },
    ));
    expect(found).toEqual([
      'approval_hash_key is not set: this replica keys approvals\' request_hash with /srv/agentd/approval-hash.key; set approval_hash_key to one value on every replica so that they digest a request alike',
      'api.api_key is empty and SERVICE_API_KEY is not set: every request will be refused with 401',
      'listening on non-loopback host 0.0.0.0: put a TLS reverse proxy with access control in front',
      "the default provider 'anthropic' is unusable: set ANTHROPIC_API_KEY; requests that name no provider will fail until then",
      'api.trust_proxy is on: the client IP is the leftmost X-Forwarded-For address, which the client controls unless your proxy overwrites the header',
      'api.web_session_ttl_seconds is 60: console sessions end that many seconds after login; values this short suit trying expiry out, not daily use',
      'the operator console is not built (missing console.js): run npm run build',
    ]);
  });

  it('needs a shared hash key only where replicas share a database', () => {
    expect(warnings(facts({ api: { api_key: 'k' } }, { hashKeySource: 'home' }))).toEqual([]);
  });

  it('logs the checks that are not ok, at their level', () => {
    const log = createMemoryLogger();
    logStartupChecks([
      { name: 'a', status: 'ok', summary: 'fine' },
      { name: 'b', status: 'warn', summary: 'look at this' },
      { name: 'c', status: 'error', summary: 'broken' },
    ], log);
    expect(log.lines.join('\n')).not.toContain('fine');
    expect(log.lines.join('\n')).toContain('look at this');
    expect(log.lines.join('\n')).toContain('broken');
  });
});
