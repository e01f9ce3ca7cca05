import { ChannelDispatcher, type ChannelRunner } from './dispatcher.js';
import type { AuditEventSource, AuditSink } from '../storage/ports/audit.js';
import type { Config } from '../config/schema.js';
import type { WebhookState } from '../diagnostics/index.js';
import type { Logger } from '../log.js';
import type { ServiceMetrics } from '../metrics/index.js';
import type { RateLimiter } from '../security/rate-limit/rate-limiter.js';
import { DurableInbox, type QueuedMessage } from './inbox/durable-inbox.js';
import type { InboxStore } from '../storage/ports/inbox.js';
import { WebhookChannel } from './webhook/index.js';

export interface WebhookServiceDeps {
  audit: AuditSink & AuditEventSource;
  log: Logger;
  runner: ChannelRunner & { getRun(runId: string): Promise<unknown> };
  /** Where accepted messages are kept until they run. */
  inbox: InboxStore;
  /** Per-IP windows shared between replicas; default the channel's own, in memory. */
  rateLimiter?: RateLimiter;
  /** This process in the inbox's claims (`Storage.owner`). */
  owner: string;
  now?: () => number;
  metrics?: Pick<ServiceMetrics, 'webhookRejected' | 'rateLimited'>;
}

/**
 * The webhook channel run inside `agentd serve` (config section `webhook:`): a message is stored
 * before it is answered 202 (and deduplicated by sender and X-Request-Id for 24 hours; with
 * `require_timestamp` its signature recorded in the same commit), then run from the
 * store in order per sender, on the session `webhook:<sender>`.
 */
export class WebhookService {
  readonly channel: WebhookChannel;
  readonly inbox: DurableInbox;
  private readonly dispatcher: ChannelDispatcher<QueuedMessage>;
  private listening = false;

  constructor(private readonly settings: Config['webhook'], private readonly deps: WebhookServiceDeps) {
    this.inbox = new DurableInbox({
      channel: 'webhook',
      store: deps.inbox,
      owner: deps.owner,
      runExists: async (runId) => (await deps.runner.getRun(runId)) !== null,
      log: deps.log,
      now: deps.now,
    });
    this.channel = new WebhookChannel({
      host: settings.host,
      port: settings.port,
      secret: settings.secret,
      trustProxy: settings.trust_proxy,
      rateLimitPerMinute: settings.rate_limit_rpm,
      requireTimestamp: settings.require_timestamp,
      timestampToleranceSeconds: settings.timestamp_tolerance_seconds,
      intake: this.inbox,
      rateLimiter: deps.rateLimiter,
      audit: deps.audit,
      log: deps.log,
      now: deps.now,
      metrics: deps.metrics,
    });
    this.dispatcher = new ChannelDispatcher({ inbox: this.inbox, runner: deps.runner, sessionPrefix: 'webhook', log: deps.log });
  }

  /** Runs what a previous process acknowledged but never ran, then opens the listener. */
  async start(): Promise<void> {
    const recovered = await this.inbox.recover();
    if (recovered > 0) this.deps.log.info(`webhook: ${recovered} message(s) accepted before the last shutdown will run now`);
    await this.channel.start();
    this.listening = true;
    this.inbox.startClaiming();
    this.dispatcher.start();
  }

  /** The listener's URL once started (`http://host:port/`). */
  get url(): string {
    const host = this.settings.host.includes(':') ? `[${this.settings.host}]` : this.settings.host;
    return `http://${host}:${this.channel.port}/`;
  }

  /**
   * New requests are answered 503 at once; the ones being stored finish (their senders get 202);
   * then the listener closes and the runs already started end with the runtime. What was accepted
   * and not started stays stored and runs at the next start; the log says how many.
   */
  async stop(): Promise<void> {
    this.channel.refuseNew();
    await this.inbox.whenAccepted();
    if (this.listening) await this.channel.stop();
    this.listening = false;
    await this.dispatcher.stop();
    await this.inbox.stopClaiming();
    const notStarted = await this.inbox.waitingCount().catch((error: unknown) => {
      this.deps.log.warn(`webhook: could not count the accepted messages left to run (${(error as Error).message}); they stay stored`);
      return 0;
    });
    if (notStarted > 0) {
      this.deps.log.warn(`webhook: ${notStarted} accepted message(s) were not run before shutdown; they are stored and run at the next start`);
    }
  }

  /** What diagnostics report about the channel. */
  state(): WebhookState {
    return {
      enabled: true,
      listening: this.listening,
      host: this.settings.host,
      port: this.listening ? this.channel.port : null,
      secretSet: this.settings.secret !== '',
    };
  }
}
