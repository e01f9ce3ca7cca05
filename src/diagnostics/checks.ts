import { statSync } from 'node:fs';
import type { Config } from '../config/schema.js';
import type { RedisHealth } from '../coordination/redis-health.js';
import type { StorageHealth } from '../storage/ports/health.js';
import type { SchedulerState } from './scheduler-checks.js';
import type { AuditHealth } from './audit.js';
import { redisCheck } from './redis.js';
import type { Check } from './types.js';
import type { ConnectionStatus } from '../channels/discord/gateway/connection.js';
import { mcpServerOf, type McpServerStatus } from '../mcp/index.js';
import { mcpChecks } from './mcp-checks.js';
import { judgeHostWithoutDns } from '../policy/destination.js';
import { NetworkPolicy } from '../policy/network-policy.js';
import { isHostedProviderName, OFFICIAL_BASE_URLS } from '../providers/endpoints.js';

/** The webhook channel as the service sees it; `listening: null` = not checked (agentd doctor). */
export interface WebhookState {
  enabled: boolean;
  listening: boolean | null;
  host: string;
  port: number | null;
  secretSet: boolean;
}

/** Read-only facts the checks look at; the app gathers them from its parts. */
export interface DiagnosticsInput {
  config: Config;
  home: string;
  configPath: string | null;
  apiKeyFromEnv: boolean;
  providers: { name: string; model: string; available: boolean; is_default: boolean; reason: string | null }[];
  tools: string[];
  memory: { turnCount: number };
  storage: StorageHealth;
  webhook: WebhookState | null;
  scheduler: SchedulerState;
  runtime: { nodeVersion: string; uptimeSeconds: number; sessions: number; runsInFlight: number };
  stdinIsTty: boolean;
  audit: AuditHealth;
  /** The shared Redis, measured now; null when `storage.redis_url` is not set. */
  redis: RedisHealth | null;
  /** Each MCP server's connection; null without a running service. */
  mcp: McpServerStatus[] | null;
  /** The Discord connection; null without a running service or without the channel. */
  discord: ConnectionStatus | null;
  /** Requests waiting for an operator's decision (at most the first page of them is counted). */
  approvals: { pending: number; oldestCreatedAt: string | null };
}

/** Bind addresses only this machine reaches: anything else needs a proxy with TLS and access control in front. */
export const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', '::1', 'localhost']);
const check = (name: string, status: Check['status'], summary: string, remediation?: string): Check =>
  remediation ? { name, status, summary, remediation } : { name, status, summary };

export function webChecks(input: DiagnosticsInput): Check[] {
  const { api } = input.config;
  const out: Check[] = [
    api.api_key === ''
      ? check('api_key', 'error', 'no API key is configured: every request is refused with 401', 'set api.api_key in the config or SERVICE_API_KEY in the environment (agentd init writes a fresh one)')
      : check('api_key', 'ok', `API key configured${input.apiKeyFromEnv ? ' (from SERVICE_API_KEY)' : ''}`),
    LOOPBACK_HOSTS.has(api.host)
      ? check('bind', 'ok', `REST API bound to loopback ${api.host}:${api.port}`)
      : check('bind', 'warn', `REST API bound to non-loopback ${api.host}`, 'bind to 127.0.0.1 and put a TLS reverse proxy with access control in front'),
    api.trust_proxy
      ? check('trust_proxy', 'warn', 'client IP taken from the leftmost X-Forwarded-For address', 'make the proxy overwrite the header: proxy_set_header X-Forwarded-For $remote_addr;')
      : check('trust_proxy', 'ok', 'client IP is the TCP peer'),
    check('rate_limit', 'ok', `${api.rate_limit_rpm} requests per minute per client IP`),
  ];
  out.push(...webhookChecks(input));
  return out;
}

function webhookChecks(input: DiagnosticsInput): Check[] {
  const hook = input.webhook;
  if (!hook || !hook.enabled) return [check('webhook', 'ok', 'webhook channel not enabled')];
  const bind = hook.listening === null
    ? check('webhook_bind', 'ok', `webhook channel configured on ${hook.host}:${hook.port ?? '?'} (the running service binds it)`)
    : hook.listening
    ? check('webhook_bind', 'ok', `webhook channel listening on ${hook.host}:${hook.port}`)
    : check('webhook_bind', 'error', `webhook channel is not listening on ${hook.host}:${hook.port ?? '?'}`, 'check that the port is free and the address exists');
  const secret = hook.secretSet
    ? check('webhook_secret', 'ok', 'webhook requests must carry an HMAC signature')
    : check(
        'webhook_secret',
        LOOPBACK_HOSTS.has(hook.host) ? 'warn' : 'error',
        'webhook secret is empty: unsigned requests are accepted',
        'set webhook.secret and sign requests with X-Service-Signature: sha256=<hex HMAC>',
      );
  return [bind, secret];
}

export function providerChecks(input: DiagnosticsInput): Check[] {
  let policy: NetworkPolicy | null = null;
  try {
    policy = NetworkPolicy.fromConfig(input.config.network);
  } catch {
    // An invalid policy is the config check's to report; the service would not start with it.
  }
  return input.providers.map((p) => {
    if (!p.available) {
      return check(p.name, p.is_default ? 'error' : 'warn', `${p.model} unavailable${p.is_default ? ' and it is the default' : ''}`, p.reason ?? undefined);
    }
    const refused = policy && providerHostRefused(policy, input.config, p.name);
    if (refused) return check(p.name, p.is_default ? 'error' : 'warn', `${p.model} configured, but ${refused.summary}`, refused.remediation);
    return check(p.name, 'ok', `${p.model} available${p.is_default ? ' (default)' : ''}`);
  });
}

/**
 * Whether the network policy refuses the provider's base URL (its address rules, then its host
 * rules for the provider category): every call would fail, so the provider is not "ok".
 */
function providerHostRefused(policy: NetworkPolicy, config: Config, name: string): { summary: string; remediation: string } | null {
  if (!isHostedProviderName(name)) return null;
  let url: URL;
  try {
    url = new URL(config.providers[name].base_url ?? OFFICIAL_BASE_URLS[name]);
  } catch {
    return null;
  }
  const verdict = judgeHostWithoutDns(policy, url, 'provider');
  if (verdict.allowed) return null;
  const where = `${url.protocol}//${url.host}`;
  if (verdict.stage === 'address') {
    return {
      summary: `the network policy refuses its base URL ${where} by its address rules (${verdict.reason}): every call fails`,
      remediation: `name the address exactly in network.provider_allowed_hosts (e.g. "${url.host}") or cover it with network.allowed_cidrs`,
    };
  }
  return {
    summary: `the network policy refuses its base URL ${where} (${verdict.reason}; network.default_deny): every call fails`,
    remediation: `add "${url.host}" to network.provider_allowed_hosts (or a preset such as "${name}")`,
  };
}

export function toolChecks(input: DiagnosticsInput): Check[] {
  const out = [check('registry', input.tools.length > 0 ? 'ok' : 'warn', `${input.tools.length} tools registered: ${input.tools.join(', ')}`)];
  const { network } = input.config;
  const toolHosts = network.allowed_hosts.length + network.allowed_domains.length + network.tool_allowed_hosts.length;
  if (input.tools.includes('web_fetch') && network.default_deny && toolHosts === 0) {
    out.push(check('web_fetch', 'warn', 'web_fetch is registered but no host is allowed for tools', 'add hosts to network.tool_allowed_hosts or network.allowed_domains'));
  }
  out.push(...mcpChecks(input.config.mcp.servers, input.mcp));
  // A misspelt name would leave the tool it meant running without approval.
  // An MCP server's tools are registered only while it is connected; its own check reports that.
  const mcpServers = new Set(input.config.mcp.servers.map((server) => server.name));
  const unknown = input.config.tools.require_approval
    .filter((name) => !input.tools.includes(name) && !mcpServers.has(mcpServerOf(name) ?? ''));
  if (unknown.length > 0) {
    out.push(check('require_approval', 'warn', `tools.require_approval names tools that are not registered: ${unknown.join(', ')}`, `registered tools: ${input.tools.join(', ')}`));
  }
  return out;
}

export function memoryChecks(input: DiagnosticsInput): Check[] {
  const days = input.config.memory.retention_days;
  return [
    check('store', 'ok', `${input.memory.turnCount} turns stored`),
    // The backend judges its own store: its checks come as it lists them.
    ...input.storage.checks,
    check('retention', 'ok', days > 0 ? `unpinned turns older than ${days} days are removed daily` : 'turns are kept until deleted'),
    dataRetention(input.config.retention),
  ];
}

function dataRetention(retention: Config['retention']): Check {
  const rule = (days: number, what: string) => (days > 0 ? `${what} ${days} days` : `${what} forever`);
  return check('data_retention', 'ok', `kept: ${rule(retention.runs_days, 'runs')}, ${rule(retention.costs_days, 'cost records')}, ${rule(retention.audit_days, 'audit events')}`);
}

export function policyChecks(input: DiagnosticsInput): Check[] {
  const { network } = input.config;
  const out = [
    network.default_deny
      ? check('default_deny', 'ok', 'outbound requests are denied unless allowed')
      : check('default_deny', 'warn', 'default_deny is off: any public host may be contacted', 'set network.default_deny: true and list the hosts you need'),
    check('rules', 'ok', `${network.presets.length} presets, ${network.allowed_hosts.length} hosts, ${network.allowed_domains.length} domains, ${network.allowed_cidrs.length} CIDRs, ${network.rest_policies.length} REST rules`),
  ];
  if (network.interactive_approval === 'terminal' && !input.stdinIsTty) {
    out.push(check('interactive_approval', 'warn', 'interactive approval is on but standard input is not a terminal: denied requests are never prompted', 'set network.interactive_approval: api to decide them over the API and console'));
  }
  if (network.interactive_approval === 'api') {
    out.push(check('interactive_approval', 'ok', `refused requests wait up to ${input.config.approval_timeout_seconds} s for a decision over the API (GET /api/v1/approvals)`));
  }
  const { pending, oldestCreatedAt } = input.approvals;
  if (pending > 0) {
    out.push(check('approvals', 'warn', `${pending} request(s) wait for an operator's decision, the oldest since ${oldestCreatedAt}`,
      'decide them in the console (Approvals) or with POST /api/v1/approvals/{id}; unanswered ones are denied after approval_timeout_seconds'));
  }
  return out;
}

export function gatewayChecks(): Check[] {
  return [check('client', 'ok', 'every outbound request passes the gateway: no redirects followed, responses capped at 50 MB, TLS always verified')];
}

export function runtimeChecks(input: DiagnosticsInput): Check[] {
  const [major = 0, minor = 0] = input.runtime.nodeVersion.replace(/^v/, '').split('.').map(Number);
  const out = [
    major > 20 || (major === 20 && minor >= 18)
      ? check('node', 'ok', `Node.js ${input.runtime.nodeVersion}`)
      : check('node', 'error', `Node.js ${input.runtime.nodeVersion} is too old`, 'install Node.js 20.18 or newer'),
    check('activity', 'ok', `up ${input.runtime.uptimeSeconds} s, ${input.runtime.sessions} sessions, ${input.runtime.runsInFlight} runs in flight`),
    permissionCheck('home', input.home, 0o700),
  ];
  if (input.configPath) out.push(permissionCheck('config_file', input.configPath, 0o600));
  if (input.redis) out.push(redisCheck(input.redis));
  return out;
}

/** Secrets live in these files: anything beyond owner access is worth a warning. */
function permissionCheck(name: string, path: string, wanted: number): Check {
  let mode: number;
  try {
    mode = statSync(path).mode & 0o777;
  } catch {
    return check(name, 'warn', `${path} cannot be read`);
  }
  if ((mode & ~wanted) === 0) return check(name, 'ok', `${path} mode ${mode.toString(8)}`);
  return check(name, 'warn', `${path} mode ${mode.toString(8)} lets other users read it`, `chmod ${wanted.toString(8)} ${path}`);
}
