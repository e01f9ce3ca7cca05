export { ServiceMetrics, type GatewayMetrics, type MetricReadings, type RateLimiterName } from './service-metrics.js';
export { HttpRequestMetrics } from './http-requests.js';
