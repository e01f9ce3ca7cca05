import { Counter, Gauge, Registry } from 'prom-client';
import { HttpRequestMetrics } from './http-requests.js';

/** Numbers the parts that own them report when scraped (gauges are read, not tracked). */
export interface MetricReadings {
  runsInFlight(): number;
  /** Accepted webhook messages waiting for their run (0 without the webhook channel). */
  webhookQueueDepth(): Promise<number>;
  databaseSizeBytes(): Promise<number>;
}

export type RateLimiterName = 'api' | 'webhook';

/** What the gateway reports: each request it ends (allowed, failed or denied), by caller category. */
export interface GatewayMetrics {
  gatewayRequest(category: string, denied: boolean): void;
}

/**
 * One app's metrics, in a registry of its own (never prom-client's global one), so several apps
 * in one process count apart. Every label takes values from a fixed set (route patterns, statuses,
 * error codes, provider names, categories), so the number of series is bounded. Counters are
 * incremented where their event happens; gauges are read when `/metrics` is scraped.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  readonly http = new HttpRequestMetrics();
  private readings: MetricReadings | null = null;
  private readonly runsFinished: Counter<'status'>;
  private readonly sseViewers: Gauge;
  private readonly webhookRejections: Counter<'reason'>;
  private readonly gatewayRequests: Counter<'category'>;
  private readonly gatewayDenials: Counter<'category'>;
  private readonly providerTokens: Counter<'provider' | 'kind'>;
  private readonly providerCost: Counter<'provider'>;
  private readonly rateLimitedRequests: Counter<'limiter'>;
  private readonly discordMessages: Counter<'result'>;
  private readonly discordReplies: Counter<'result'>;

  constructor() {
    const registers = [this.registry];
    this.http.register(this.registry);
    this.runsFinished = new Counter({ name: 'agentd_runs_finished_total', help: 'Runs finished by this process, by final status', labelNames: ['status'], registers });
    const reading = (read: (readings: MetricReadings) => number | Promise<number>) => this.gaugeReading(read);
    new Gauge({ name: 'agentd_runs_in_flight', help: 'Runs executing in this process', registers, collect: reading((r) => r.runsInFlight()) });
    this.sseViewers = new Gauge({ name: 'agentd_sse_viewers', help: 'Open run event streams (Server-Sent Events)', registers });
    new Gauge({ name: 'agentd_webhook_queue_depth', help: 'Accepted webhook messages waiting for their run', registers, collect: reading((r) => r.webhookQueueDepth()) });
    this.webhookRejections = new Counter({ name: 'agentd_webhook_rejections_total', help: 'Webhook requests refused, by error code', labelNames: ['reason'], registers });
    this.gatewayRequests = new Counter({ name: 'agentd_gateway_requests_total', help: 'Outbound requests through the gateway (allowed, failed or denied), by caller category', labelNames: ['category'], registers });
    this.gatewayDenials = new Counter({ name: 'agentd_gateway_denials_total', help: 'Outbound requests the gateway refused, by caller category', labelNames: ['category'], registers });
    this.providerTokens = new Counter({ name: 'agentd_provider_tokens_total', help: 'Tokens of recorded provider calls, by provider and kind (prompt, completion)', labelNames: ['provider', 'kind'], registers });
    this.providerCost = new Counter({ name: 'agentd_provider_cost_usd_total', help: 'Cost in USD of recorded provider calls, by provider', labelNames: ['provider'], registers });
    this.rateLimitedRequests = new Counter({ name: 'agentd_rate_limited_total', help: 'Requests refused by a rate limiter (api, webhook)', labelNames: ['limiter'], registers });
    this.discordMessages = new Counter({ name: 'agentd_discord_messages_total', help: 'Discord messages received, by result (accepted, ignored)', labelNames: ['result'], registers });
    this.discordReplies = new Counter({ name: 'agentd_discord_replies_total', help: 'Discord replies, by result (posted, failed after retries)', labelNames: ['result'], registers });
    new Gauge({ name: 'agentd_database_size_bytes', help: 'Size of the database (the SQLite file, or the PostgreSQL database)', registers, collect: reading((r) => r.databaseSizeBytes()) });
  }

  /** A gauge's collect function (prom-client calls it with the gauge as `this` at each scrape). */
  private gaugeReading(read: (readings: MetricReadings) => number | Promise<number>) {
    const current = () => this.readings;
    return async function collect(this: Gauge): Promise<void> {
      const readings = current();
      this.set(readings === null ? 0 : await read(readings));
    };
  }

  /** Connects the gauges to the parts that own their numbers (built after the metrics). */
  readFrom(readings: MetricReadings): void {
    this.readings = readings;
  }

  runFinished(status: string): void {
    this.runsFinished.inc({ status });
  }

  sseViewerOpened(): void {
    this.sseViewers.inc();
  }

  sseViewerClosed(): void {
    this.sseViewers.dec();
  }

  webhookRejected(code: string): void {
    this.webhookRejections.inc({ reason: code });
  }

  discordMessage(result: 'accepted' | 'ignored'): void {
    this.discordMessages.inc({ result });
  }

  discordReply(result: 'posted' | 'failed'): void {
    this.discordReplies.inc({ result });
  }

  readonly gatewayRequest = (category: string, denied: boolean): void => {
    this.gatewayRequests.inc({ category });
    if (denied) this.gatewayDenials.inc({ category });
  };

  providerUsage(provider: string, usage: { prompt_tokens: number; completion_tokens: number; cost_usd: number }): void {
    this.providerTokens.inc({ provider, kind: 'prompt' }, usage.prompt_tokens);
    this.providerTokens.inc({ provider, kind: 'completion' }, usage.completion_tokens);
    this.providerCost.inc({ provider }, usage.cost_usd);
  }

  rateLimited(limiter: RateLimiterName): void {
    this.rateLimitedRequests.inc({ limiter });
  }

  /** The Prometheus text exposition of every family. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
