import { WebhookService } from '../channels/webhook-service.js';
import type { Config } from '../config/schema.js';
import { ListenError } from '../listen-error.js';
import type { Logger } from '../log.js';
import { channelParts, type ChannelsInput } from './channel-wiring.js';
import type { LifecyclePart } from './lifecycle.js';

/**
 * The webhook channel when `webhook.enabled`: messages become runs on the session webhook:<sender>.
 * The Discord channel when `discord.enabled`: its messages become runs on discord:<channel or user id>.
 */
export async function wireChannels(input: ChannelsInput) {
  const { config, log, now, storage, coordination, audit, metrics, agent } = input;
  const webhook = config.webhook.enabled
    ? new WebhookService(config.webhook, {
      audit, log, runner: agent, inbox: storage.inbox, owner: storage.owner, now,
      rateLimiter: coordination?.rateLimiter('webhook', config.webhook.rate_limit_rpm), metrics,
    })
    : null;
  // The Discord client library is loaded only when the channel is enabled.
  const discord = config.discord.enabled ? (await import('./discord.js')).discordService(input) : null;
  // Messages a stopped replica had claimed are given back when its sessions are reaped: take them then.
  agent.leases.onReaped(() => {
    webhook?.inbox.claimNow();
    discord?.inbox.claimNow();
  });
  return {
    webhook,
    discord,
    parts: webhook ? webhookParts(webhook, config, log) : null,
    discordParts: discord ? channelParts('discord channel', () => discord.start(), () => discord.stop()) : null,
  };
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
