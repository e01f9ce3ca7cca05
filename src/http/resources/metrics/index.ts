import type { ResourcePlugin } from '../context.js';

/** Where Prometheus scrapes (outside the API prefix, as scrapers expect), with the API's credentials. */
export const METRICS_PATH = '/metrics';

/** Every family `GET /metrics` serves, as the OpenAPI document and the README list them. */
export const METRIC_FAMILIES: readonly (readonly [name: string, what: string])[] = [
  ['agentd_http_requests_total{route,method,status}', 'requests answered, by route pattern (never the raw URL; `unmatched` when no route matched)'],
  ['agentd_http_request_duration_seconds{route,method,status}', 'histogram of the time to answer them'],
  ['agentd_runs_finished_total{status}', 'runs this process ended: complete, error, cancelled'],
  ['agentd_runs_in_flight', 'runs executing in this process'],
  ['agentd_sse_viewers', 'open run event streams'],
  ['agentd_webhook_queue_depth', 'accepted webhook messages waiting for their run'],
  ['agentd_webhook_rejections_total{reason}', 'webhook requests refused, by error code (AGENTD_…)'],
  ['agentd_discord_messages_total{result}', 'Discord messages received: accepted (stored to run) or ignored'],
  ['agentd_discord_replies_total{result}', 'Discord replies: posted, or failed after retries'],
  ['agentd_gateway_requests_total{category}', 'outbound requests through the gateway (allowed, failed or denied), by caller: provider, tool, discord'],
  ['agentd_gateway_denials_total{category}', 'outbound requests the network policy refused'],
  ['agentd_provider_tokens_total{provider,kind}', 'tokens of recorded provider calls, kind prompt or completion'],
  ['agentd_provider_cost_usd_total{provider}', 'their cost in USD (0 for models without a price)'],
  ['agentd_rate_limited_total{limiter}', 'requests refused by a rate limiter: api, webhook'],
  ['agentd_database_size_bytes', 'size of the SQLite file, or of the PostgreSQL database'],
];

/** `GET /metrics`: the Prometheus text format, authenticated like the API (the key, or a console session). */
export const metricsPlugin: ResourcePlugin<'metrics'> = async (app, context) => {
  app.get(METRICS_PATH, {
    schema: {
      summary: 'Prometheus metrics',
      operationId: 'getMetrics',
      description: `Prometheus text format (version 0.0.4), with the API key like every API route. Families: ${
        METRIC_FAMILIES.map(([name, what]) => `${name}: ${what}`).join('; ')}.`,
      tags: ['system'],
      response: { 200: { description: 'Prometheus text exposition', content: { 'text/plain': { schema: { type: 'string' } } } } },
    },
  }, async (_request, reply) => {
    const text = await context.metrics.render();
    return reply.type(context.metrics.contentType).send(text);
  });
};
