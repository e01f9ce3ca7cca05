import autocannon from 'autocannon';

export interface LoadResult {
  rps: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string | Buffer;
  connections?: number;
  durationSeconds?: number;
}

/** One autocannon run against `url`; reports requests/s (mean), p99 latency and failures. */
export async function load(options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: options.headers,
    body: options.body,
    connections: options.connections ?? 50,
    duration: options.durationSeconds ?? 5,
  });
  return { rps: result.requests.average, p99Ms: result.latency.p99, non2xx: result.non2xx, errors: result.errors };
}

/**
 * Load A and B alternately (A/B/A/B …) so that drift in the machine's speed hits both equally,
 * and report the mean of each side's rounds.
 */
export async function alternate(a: LoadOptions, b: LoadOptions, rounds = 2): Promise<{ a: LoadResult; b: LoadResult }> {
  const as: LoadResult[] = [];
  const bs: LoadResult[] = [];
  await load({ ...a, durationSeconds: 1 }); // warm-up: JIT and connection pools
  await load({ ...b, durationSeconds: 1 });
  for (let i = 0; i < rounds; i++) {
    as.push(await load(a));
    bs.push(await load(b));
  }
  return { a: mean(as), b: mean(bs) };
}

function mean(results: LoadResult[]): LoadResult {
  const avg = (f: (r: LoadResult) => number) => results.reduce((s, r) => s + f(r), 0) / results.length;
  return { rps: avg((r) => r.rps), p99Ms: avg((r) => r.p99Ms), non2xx: avg((r) => r.non2xx), errors: avg((r) => r.errors) };
}
