import { Counter, type Metric, type Registry } from 'prom-client';

/** Upper bounds of the latency histogram, in seconds: from a cached read to a slow provider call. */
export const DURATION_BUCKETS_SECONDS: readonly number[] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Most (route, method, status) series kept. Routes are the registered patterns and Node's parser
 * knows a fixed list of methods, so real traffic stays far below; the bound only guarantees that
 * no request can grow the map without limit (past it requests are counted under `route="other"`).
 */
const MAX_SERIES = 2_000;
/** The route label of a request no route matched (404s, refusals before routing). */
const UNMATCHED_ROUTE = 'unmatched';
const OVERFLOW_ROUTE = 'other';

interface Series {
  route: string;
  method: string;
  status: number;
  count: number;
  sumSeconds: number;
  /** Requests per bucket (not cumulative: summed when exported). */
  buckets: Float64Array;
}

type Labels = { route: string; method: string; status: string };

/**
 * `agentd_http_requests_total` and `agentd_http_request_duration_seconds`. prom-client's label
 * handling costs about a microsecond per observation (it validates and hashes the labels every
 * time), which the authenticated health benchmark would notice; requests are counted here in plain
 * maps instead (about 0.1 µs) and turned into prom-client values only when scraped.
 */
export class HttpRequestMetrics {
  private readonly byRoute = new Map<string, Map<string, Map<number, Series>>>();
  private seriesCount = 0;

  /** One answered request: `route` is the route pattern (never the raw URL), `elapsedMs` its duration. */
  record(route: string | undefined, method: string, status: number, elapsedMs: number): void {
    const series = this.seriesOf(route ?? UNMATCHED_ROUTE, method, status);
    const seconds = elapsedMs / 1000;
    series.count++;
    series.sumSeconds += seconds;
    let bucket = 0;
    while (bucket < DURATION_BUCKETS_SECONDS.length && seconds > DURATION_BUCKETS_SECONDS[bucket]!) bucket++;
    if (bucket < DURATION_BUCKETS_SECONDS.length) series.buckets[bucket]!++;
  }

  /** Registers both families on `registry`; their values are read from the maps at each scrape. */
  register(registry: Registry): void {
    const all = () => [...this.byRoute.values()].flatMap((byMethod) => [...byMethod.values()].flatMap((byStatus) => [...byStatus.values()]));
    const labelsOf = (s: Series): Labels => ({ route: s.route, method: s.method, status: String(s.status) });
    new Counter({
      name: 'agentd_http_requests_total',
      help: 'HTTP requests answered by the REST API and console, by route pattern, method and status',
      labelNames: ['route', 'method', 'status'],
      registers: [registry],
      collect() {
        this.reset();
        for (const s of all()) this.inc(labelsOf(s), s.count);
      },
    });
    const name = 'agentd_http_request_duration_seconds';
    const histogram = {
      name,
      help: 'Time from receiving a request to finishing its answer, by route pattern, method and status',
      type: 'histogram',
      aggregator: 'sum',
      get: async () => ({
        name: histogram.name, help: histogram.help, type: histogram.type, aggregator: histogram.aggregator,
        values: all().flatMap((s) => histogramValues(name, labelsOf(s), s)),
      }),
    };
    // The registry reads a metric only through name, help, type and get(); prom-client's own
    // Histogram cannot take counts made elsewhere, so this object stands in for one.
    registry.registerMetric(histogram as unknown as Metric);
  }

  private seriesOf(route: string, method: string, status: number): Series {
    let byMethod = this.byRoute.get(route);
    let byStatus = byMethod?.get(method);
    const found = byStatus?.get(status);
    if (found !== undefined) return found;
    if (this.seriesCount >= MAX_SERIES && route !== OVERFLOW_ROUTE) return this.seriesOf(OVERFLOW_ROUTE, method, status);
    if (byMethod === undefined) this.byRoute.set(route, (byMethod = new Map()));
    if (byStatus === undefined) byMethod.set(method, (byStatus = new Map()));
    const series: Series = { route, method, status, count: 0, sumSeconds: 0, buckets: new Float64Array(DURATION_BUCKETS_SECONDS.length) };
    byStatus.set(status, series);
    this.seriesCount++;
    return series;
  }
}

function histogramValues(name: string, labels: Labels, series: Series) {
  let cumulative = 0;
  const buckets = DURATION_BUCKETS_SECONDS.map((bound, i) => {
    cumulative += series.buckets[i]!;
    return { metricName: `${name}_bucket`, labels: { ...labels, le: bound }, value: cumulative };
  });
  return [
    ...buckets,
    { metricName: `${name}_bucket`, labels: { ...labels, le: '+Inf' }, value: series.count },
    { metricName: `${name}_sum`, labels, value: series.sumSeconds },
    { metricName: `${name}_count`, labels, value: series.count },
  ];
}
