import type { AgentRuntime } from '../agent/runtime.js';
import { WebhookService } from '../channels/webhook-service.js';
import type { Config } from '../config/schema.js';
import { ListenError } from '../listen-error.js';
import type { Logger } from '../log.js';
import type { ServiceCore } from './core.js';
import type { LifecyclePart } from './lifecycle.js';

export interface ChannelsInput extends ServiceCore {
  agent: AgentRuntime;
}

/** The webhook channel when `webhook.enabled`: messages become runs on the session webhook:<sender>. */
export function wireChannels({ config, log, now, storage, coordination, audit, metrics, agent }: ChannelsInput) {
  const webhook = config.webhook.enabled
    ? new WebhookService(config.webhook, {
      audit, log, runner: agent, inbox: storage.inbox, owner: storage.owner, now,
      rateLimiter: coordination?.rateLimiter('webhook', config.webhook.rate_limit_rpm), metrics,
    })
    : null;
  // Messages a stopped replica had claimed are given back when its sessions are reaped: take them then.
  if (webhook) agent.leases.onReaped(() => webhook.inbox.claimNow());
  return { webhook, parts: webhook ? webhookParts(webhook, config, log) : null };
}

/**
 * Two parts, far apart in the stop order: the listener stops taking messages first of all, and
 * its stop is waited for only once the runs in flight have ended (their terminal events stored
 * and sent), before the REST listener and the database close.
 */
function webhookParts(webhook: WebhookService, config: Config, log: Logger): { intake: LifecyclePart; drained: LifecyclePart } {
  let stopped: Promise<void> | undefined;
  return {
    intake: {
      name: 'webhook channel',
      phase: 'listen',
      start: async () => {
        try {
          await webhook.start();
        } catch (error) {
          throw new ListenError('webhook channel', config.webhook.host, config.webhook.port, 'webhook.port in the config', error);
        }
        // Messages become runs on the session webhook:<sender>; their answers are read from the runs.
        log.info(`webhook channel listening on ${webhook.url}; each message runs on the session webhook:<sender> (GET /api/v1/runs?session_id=webhook:<sender>)`);
      },
      stop: () => {
        stopped = webhook.stop();
      },
    },
    drained: { name: 'webhook channel drained', stop: () => stopped },
  };
}
