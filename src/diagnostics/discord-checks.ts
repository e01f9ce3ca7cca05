import type { ConnectionStatus } from '../channels/discord/gateway/connection.js';
import type { Config } from '../config/schema.js';
import { judgeHostWithoutDns } from '../policy/destination.js';
import { NetworkPolicy } from '../policy/network-policy.js';
import type { Check } from './types.js';

/**
 * The Discord section (docs/discord.md#diagnostics): whether the channel is on, its connection
 * (connected as which bot in how many guilds, on another replica, or its last error), the last
 * heartbeat's latency, whether the policy lets the API through, and the allow lists.
 */

const check = (name: string, status: Check['status'], summary: string, remediation?: string): Check =>
  remediation ? { name, status, summary, remediation } : { name, status, summary };

const list = (ids: readonly string[]): string => (ids.length > 0 ? ids.join(', ') : 'none');

/** `status` is null where no service runs (`agentd doctor` on the files). */
export function discordChecks(config: Config, status: ConnectionStatus | null): Check[] {
  const discord = config.discord;
  if (!discord.enabled) return [check('channel', 'ok', 'Discord channel not enabled')];
  return [
    connectionCheck(status),
    ...(status?.heartbeatLatencyMs != null ? [check('heartbeat', 'ok', `last heartbeat acknowledged in ${status.heartbeatLatencyMs} ms`)] : []),
    policyCheck(config),
    check('allowed', 'ok', `guilds: ${list(discord.allowed_guilds)}; channels: ${list(discord.allowed_channels)}; users: ${list(discord.allowed_users)}`),
  ];
}

function connectionCheck(status: ConnectionStatus | null): Check {
  if (status === null) return check('connection', 'ok', 'Discord channel configured (the running service connects)');
  switch (status.state) {
    case 'connected':
      return check('connection', 'ok', `connected as ${status.user?.username ?? '?'} (${status.user?.id ?? '?'}) in ${status.guildCount ?? 0} guild(s)`);
    case 'standby':
      return check('connection', 'ok', 'another replica holds the Gateway connection; this one takes it over if that replica stops');
    case 'failed':
      return check('connection', 'error', `not connected: ${status.lastError ?? 'stopped'}`, 'fix the cause named and restart the service');
    default:
      return check('connection', 'warn', `connecting${status.lastError ? ` (last error: ${status.lastError})` : ''}`);
  }
}

function policyCheck(config: Config): Check {
  const url = new URL(config.discord.api_base_url);
  let verdict: ReturnType<typeof judgeHostWithoutDns>;
  try {
    verdict = judgeHostWithoutDns(NetworkPolicy.fromConfig(config.network), url, 'discord');
  } catch {
    // An invalid policy is the config check's to report; the service would not start with it.
    return check('network_policy', 'ok', 'not checked: the network policy is invalid');
  }
  if (verdict.allowed) return check('network_policy', 'ok', `the network policy allows the Discord API at ${url.host}`);
  return check('network_policy', 'error', `the network policy refuses the Discord API at ${url.host} (${verdict.reason})`,
    'add the preset "discord" to network.presets, or the hosts to network.discord_allowed_hosts');
}
