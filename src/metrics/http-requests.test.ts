import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { HttpRequestMetrics } from './http-requests.js';

async function exposition(record: (metrics: HttpRequestMetrics) => void): Promise<string> {
  const metrics = new HttpRequestMetrics();
  const registry = new Registry();
  metrics.register(registry);
  record(metrics);
  return registry.metrics();
}

describe('HttpRequestMetrics', () => {
  it('exports cumulative buckets, the sum and the count of each route, method and status', async () => {
    const text = await exposition((m) => {
      m.record('/api/v1/health', 'GET', 200, 0.3);
      m.record('/api/v1/health', 'GET', 200, 4);
      m.record('/api/v1/health', 'GET', 200, 20_000);
      m.record(undefined, 'POST', 404, 1);
    });
    const labels = 'route="/api/v1/health",method="GET",status="200"';
    expect(text).toContain(`agentd_http_requests_total{${labels}} 3`);
    expect(text).toContain(`agentd_http_request_duration_seconds_bucket{${labels},le="0.0005"} 1`);
    expect(text).toContain(`agentd_http_request_duration_seconds_bucket{${labels},le="0.005"} 2`);
    expect(text).toContain(`agentd_http_request_duration_seconds_bucket{${labels},le="10"} 2`);
    expect(text).toContain(`agentd_http_request_duration_seconds_bucket{${labels},le="+Inf"} 3`);
    expect(text).toContain(`agentd_http_request_duration_seconds_sum{${labels}} 20.0043`);
    expect(text).toContain(`agentd_http_request_duration_seconds_count{${labels}} 3`);
    expect(text).toContain('agentd_http_requests_total{route="unmatched",method="POST",status="404"} 1');
    expect(text).toContain('# TYPE agentd_http_request_duration_seconds histogram');
  });

  it('keeps a bounded number of series: past the bound new routes are counted as "other"', async () => {
    const text = await exposition((m) => {
      for (let i = 0; i < 2_500; i++) m.record(`/route/${i}`, 'GET', 200, 1);
    });
    expect(text.match(/^agentd_http_requests_total\{/gm)).toHaveLength(2_001);
    expect(text).toContain('agentd_http_requests_total{route="other",method="GET",status="200"} 500');
    expect(text).not.toContain('route="/route/2000"');
  });
});
