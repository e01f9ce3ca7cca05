import { ChannelDispatcher, type ChannelRunner } from '../agent/channel-dispatcher.js';
import type { AuditSink } from '../audit/types.js';
import type { Config } from '../config/schema.js';
import type { WebhookState } from '../diagnostics/index.js';
import type { Logger } from '../log.js';
import { WebhookChannel } from './webhook/index.js';

/** The webhook channel run inside `agentd serve` (config section `webhook:`), drained into runs. */
export class WebhookService {
  readonly channel: WebhookChannel;
  private readonly dispatcher: ChannelDispatcher;
  private listening = false;

  constructor(private readonly settings: Config['webhook'], deps: { audit: AuditSink; log: Logger; runner: ChannelRunner }) {
    this.channel = new WebhookChannel({
      host: settings.host,
      port: settings.port,
      secret: settings.secret,
      trustProxy: settings.trust_proxy,
      audit: deps.audit,
      log: deps.log,
    });
    this.dispatcher = new ChannelDispatcher({ inbox: this.channel, runner: deps.runner, sessionPrefix: 'webhook', log: deps.log });
  }

  async start(): Promise<void> {
    await this.channel.start();
    this.listening = true;
    this.dispatcher.start();
  }

  /** The listener's URL once started (`http://host:port/`). */
  get url(): string {
    const host = this.settings.host.includes(':') ? `[${this.settings.host}]` : this.settings.host;
    return `http://${host}:${this.channel.port}/`;
  }

  /** Stop the listener first (no new messages), then let started runs finish. */
  async stop(): Promise<void> {
    if (this.listening) await this.channel.stop();
    this.listening = false;
    await this.dispatcher.stop();
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
