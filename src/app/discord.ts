import type { AgentRuntime } from '../agent/runtime.js';
import type { AuditLog } from '../audit/log.js';
import { DiscordRest } from '../channels/discord/rest.js';
import { DiscordService } from '../channels/discord/service.js';
import { DiscordConnection } from '../channels/discord/gateway/connection.js';
import { LeasedConnection } from '../channels/discord/gateway/lease.js';
import type { DiscordConnectionEvents } from '../channels/discord/gateway/types.js';
import { ConfigError } from '../config/errors.js';
import type { Config } from '../config/schema.js';
import type { Gateway } from '../gateway/index.js';
import type { Logger } from '../log.js';
import { randomToken } from '../security/ids/tokens.js';
import type { ChannelsInput } from './channel-wiring.js';
import type { LifecyclePart } from './lifecycle.js';

export interface DiscordInput {
  config: Config;
  env: NodeJS.ProcessEnv;
  log: Logger;
  audit: AuditLog;
  gateway: Gateway;
  agent: AgentRuntime;
  /** This replica's name in the shared stores (`Storage.owner`). */
  owner: string;
  events: DiscordConnectionEvents;
  /** Tests shorten the back-off and how often a standby replica tries to take the connection. */
  backoff?: { initialMs: number; maxMs: number };
  leaseCheckMs?: number;
}

/**
 * The Discord channel when `discord.enabled` (this module, and the Discord client library with
 * it, is imported only then). Every REST call goes out through the gateway with category
 * `discord`: under the network policy, audited. The token comes from the environment only, and
 * is handed to nothing else.
 */
export function discordService({ config, env, log, now, storage, audit, metrics, agent, gateway, consoleUrl }: ChannelsInput): DiscordService {
  const settings = config.discord;
  const token = discordToken(settings, env);
  const client = gateway.client({ category: 'discord' });
  const rest = new DiscordRest({ apiBaseUrl: settings.api_base_url, token, fetch: (url, init) => client.fetch(url, init) });
  return new DiscordService(settings, {
    audit, log, runner: agent, inbox: storage.inbox, owner: storage.owner, rest, consoleUrl, metrics, now,
  });
}

/** The bot token, read from the environment at start; a missing one refuses the start, naming the variable only (its value is the secret). */
function discordToken(settings: Config['discord'], env: NodeJS.ProcessEnv): string {
  const token = env[settings.token_env]?.trim();
  if (!token) throw new ConfigError(`discord.enabled is true but the environment variable ${settings.token_env} (discord.token_env) holding the bot token is not set`);
  return token;
}

/**
 * The Discord Gateway connection when `discord.enabled` (docs/discord.md#connection): held by one
 * replica at a time, opened when serving and closed first of all at shutdown.
 */
export function wireDiscordConnection(input: DiscordInput): { connection: LeasedConnection; part: LifecyclePart } | null {
  const { config, env, log, audit, gateway, agent, owner } = input;
  if (!config.discord.enabled) return null;
  const token = discordToken(config.discord, env);
  const connection = new DiscordConnection({
    token, apiBaseUrl: config.discord.api_base_url, network: gateway, audit, log, events: input.events, backoff: input.backoff,
  });
  const leased = new LeasedConnection({
    claims: agent.leases, connection, holderId: `discord-gateway:${owner}:${randomToken(8)}`, log, checkEveryMs: input.leaseCheckMs,
  });
  return {
    connection: leased,
    part: { name: 'Discord connection', phase: 'listen', start: async () => leased.start(), stop: () => leased.stop() },
  };
}
