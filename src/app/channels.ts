import type { AgentRuntime } from '../agent/runtime.js';
import { DiscordRest } from '../channels/discord/rest.js';
import { DiscordService } from '../channels/discord/service.js';
import { discordToken } from './discord.js';
import { WebhookService } from '../channels/webhook-service.js';
import type { Config } from '../config/schema.js';
import type { Gateway } from '../gateway/index.js';
import { ListenError } from '../listen-error.js';
import type { Logger } from '../log.js';
import type { ServiceCore } from './core.js';
import type { LifecyclePart } from './lifecycle.js';

export interface ChannelsInput extends ServiceCore {
  agent: AgentRuntime;
  gateway: Gateway;
  env: NodeJS.ProcessEnv;
  /** The service's base URL once listening (the console's address, linked from Discord). */
  consoleUrl(): string;
}

/**
 * The webhook channel when `webhook.enabled`: messages become runs on the session webhook:<sender>.
 * The Discord channel when `discord.enabled`: its messages become runs on discord:<channel or user id>.
 */
export function wireChannels(input: ChannelsInput) {
  const { config, log, now, storage, coordination, audit, metrics, agent } = input;
  const webhook = config.webhook.enabled
    ? new WebhookService(config.webhook, {
      audit, log, runner: agent, inbox: storage.inbox, owner: storage.owner, now,
      rateLimiter: coordination?.rateLimiter('webhook', config.webhook.rate_limit_rpm), metrics,
    })
    : null;
  const discord = config.discord.enabled ? discordService(input) : null;
  // Messages a stopped replica had claimed are given back when its sessions are reaped: take them then.
  agent.leases.onReaped(() => {
    webhook?.inbox.claimNow();
    discord?.inbox.claimNow();
  });
  return {
    webhook,
    discord,
    parts: webhook ? webhookParts(webhook, config, log) : null,
    discordParts: discord ? discordParts(discord) : null,
  };
}

/**
 * Every REST call goes out through the gateway with category `discord`: under the network
 * policy, audited. The token comes from the environment only, and is handed to nothing else.
 */
function discordService({ config, env, log, now, storage, audit, metrics, agent, gateway, consoleUrl }: ChannelsInput): DiscordService {
  const settings = config.discord;
  const token = discordToken(settings, env);
  const client = gateway.client({ category: 'discord' });
  const rest = new DiscordRest({ apiBaseUrl: settings.api_base_url, token, fetch: (url, init) => client.fetch(url, init) });
  return new DiscordService(settings, {
    audit, log, runner: agent, inbox: storage.inbox, owner: storage.owner, rest, consoleUrl, metrics, now,
  });
}

/**
 * Two parts, far apart in the stop order: the channel stops taking messages first of all, and its
 * stop is waited for only once the runs in flight have ended (their terminal events stored and
 * sent), before the REST listener and the database close.
 */
function channelParts(name: string, start: () => Promise<void>, stop: () => Promise<void>): { intake: LifecyclePart; drained: LifecyclePart } {
  let stopped: Promise<void> | undefined;
  return {
    intake: {
      name,
      phase: 'listen',
      start,
      stop: () => {
        stopped = stop();
      },
    },
    drained: { name: `${name} drained`, stop: () => stopped },
  };
}

function discordParts(discord: DiscordService): { intake: LifecyclePart; drained: LifecyclePart } {
  return channelParts('discord channel', () => discord.start(), () => discord.stop());
}

function webhookParts(webhook: WebhookService, config: Config, log: Logger): { intake: LifecyclePart; drained: LifecyclePart } {
  const start = async () => {
    try {
      await webhook.start();
    } catch (error) {
      throw new ListenError('webhook channel', config.webhook.host, config.webhook.port, 'webhook.port in the config', error);
    }
    // Messages become runs on the session webhook:<sender>; their answers are read from the runs.
    log.info(`webhook channel listening on ${webhook.url}; each message runs on the session webhook:<sender> (GET /api/v1/runs?session_id=webhook:<sender>)`);
  };
  return channelParts('webhook channel', start, () => webhook.stop());
}
