import autocannon from 'autocannon';
import type { ScenarioResult } from './types.js';

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
  /** Requests each connection sends in turn (different bodies and headers); `body`/`headers` then only default them. */
  requests?: { body: string; headers: Record<string, string> }[];
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
    ...(options.requests ? { requests: options.requests.map((r) => ({ method: options.method ?? 'GET', ...r })) } : {}),
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

/** A server under load, started for one scenario and closed after it. */
export interface Served {
  url: string;
  close(): Promise<void>;
}

export interface RatioScenarioOptions<S extends Served> {
  /** Reported as the result's `scenario`. */
  scenario: string;
  /** Prefix of the subject's figures (`<label>_rps`, `<label>_p99_ms`) and name in the error. */
  label: string;
  /** The goal: subject requests/s at least this fraction of the baseline's. */
  minRatio: number;
  subject(): Promise<S>;
  baseline(): Promise<Served>;
  /** The load for each side, once both are up. */
  requests(subject: S, baseline: Served): [LoadOptions, LoadOptions];
}

/**
 * Starts the subject and a baseline server, loads them alternately, and reports the ratio of
 * their request rates against the goal. Fails if the subject answered anything but 2xx.
 */
export async function ratioScenario<S extends Served>(options: RatioScenarioOptions<S>): Promise<ScenarioResult> {
  const { label, minRatio } = options;
  const subject = await options.subject();
  const bare = await options.baseline();
  try {
    const { a, b } = await alternate(...options.requests(subject, bare));
    if (a.non2xx > 0 || a.errors > 0) throw new Error(`${label} answered ${a.non2xx} non-2xx and ${a.errors} errors`);
    const ratio = a.rps / b.rps;
    return {
      scenario: options.scenario,
      figures: {
        [`${label}_rps`]: Math.round(a.rps), [`${label}_p99_ms`]: a.p99Ms, bare_rps: Math.round(b.rps), bare_p99_ms: b.p99Ms,
        ratio: Number(ratio.toFixed(3)),
      },
      goal: `ratio >= ${minRatio.toFixed(2)}`,
      met: ratio >= minRatio,
      headline: { agentd: `${Math.round(a.rps)} req/s`, baseline: `${Math.round(b.rps)} req/s`, ratio },
    };
  } finally {
    await Promise.all([subject.close(), bare.close()]);
  }
}

function mean(results: LoadResult[]): LoadResult {
  const avg = (f: (r: LoadResult) => number) => results.reduce((s, r) => s + f(r), 0) / results.length;
  return { rps: avg((r) => r.rps), p99Ms: avg((r) => r.p99Ms), non2xx: avg((r) => r.non2xx), errors: avg((r) => r.errors) };
}
