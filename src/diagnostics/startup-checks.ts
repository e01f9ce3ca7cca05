import { homeFile } from '../config/home-layout.js';
import type { Config } from '../config/schema.js';
import type { Logger } from '../log.js';
import { LOOPBACK_HOSTS } from './checks.js';
import type { Check } from './types.js';

/** Web sessions shorter than this are warned about at start: the operator is sent to the login page that often. */
const SHORT_WEB_SESSION_SECONDS = 300;

/** What the service knows about itself once its parts are built, before it serves. */
export interface StartupFacts {
  config: Config;
  home: string;
  /** Where the approvals' request-hash key came from: the config, or a file in the home. */
  hashKeySource: 'config' | 'home';
  /** Whether the store is one several replicas share (each with a home of its own). */
  sharedStorage: boolean;
  /** The default provider (the operator's choice restored, else the config's) and why it cannot answer, or null when it can. */
  defaultProvider: { name: string; problem: string | null };
  /** Operator console files missing from this build. */
  consoleMissing: readonly string[];
}

const check = (name: string, problem: string | null, fine: string): Check =>
  problem === null ? { name, status: 'ok', summary: fine } : { name, status: 'warn', summary: problem };

/**
 * The checks `agentd serve` runs once at start: settings that work but that an operator should
 * know about, each warned about in the service log.
 */
export function startupChecks(facts: StartupFacts): Check[] {
  const { config } = facts;
  const { api } = config;
  return [
    check('approval_hash_key', facts.hashKeySource === 'home' && facts.sharedStorage
      ? `approval_hash_key is not set: this replica keys approvals' request_hash with ${homeFile(facts.home, 'approvalHashKey')}; set approval_hash_key to one value on every replica so that they digest a request alike`
      : null, 'approvals\' request_hash is keyed alike on every replica'),
    check('api_key', api.api_key === '' ? 'api.api_key is empty and SERVICE_API_KEY is not set: every request will be refused with 401' : null, 'API key configured'),
    check('bind', LOOPBACK_HOSTS.has(api.host) ? null : `listening on non-loopback host ${api.host}: put a TLS reverse proxy with access control in front`, `bound to loopback ${api.host}`),
    check('default_provider', facts.defaultProvider.problem === null
      ? null
      : `the default provider '${facts.defaultProvider.name}' is unusable: ${facts.defaultProvider.problem}; requests that name no provider will fail until then`,
    `the default provider '${facts.defaultProvider.name}' is usable`),
    check('trust_proxy', api.trust_proxy
      ? 'api.trust_proxy is on: the client IP is the leftmost X-Forwarded-For address, which the client controls unless your proxy overwrites the header'
      : null, 'client IP is the TCP peer'),
    check('web_session_ttl', api.web_session_ttl_seconds < SHORT_WEB_SESSION_SECONDS
      ? `api.web_session_ttl_seconds is ${api.web_session_ttl_seconds}: console sessions end that many seconds after login; values this short suit trying expiry out, not daily use`
      : null, `console sessions last ${api.web_session_ttl_seconds} s`),
    check('console', facts.consoleMissing.length > 0 ? `the operator console is not built (missing ${facts.consoleMissing.join(', ')}): run npm run build` : null, 'operator console built'),
  ];
}

/** Writes the start-up checks that are not ok to the service log, one line each. */
export function logStartupChecks(checks: readonly Check[], log: Pick<Logger, 'warn' | 'error'>): void {
  for (const { status, summary } of checks) if (status !== 'ok') log[status](summary);
}
