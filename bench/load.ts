import autocannon from 'autocannon';
import { processCpuMs } from './machine-cpu.js';
import { median } from './stats.js';
import type { ScenarioResult } from './types.js';

export interface LoadResult {
  rps: number;
  /** Requests answered in the run. */
  requests: number;
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
  /** The server's process: its CPU time over the run is reported as `cpuMs`. */
  pid?: number;
}

/** One autocannon run against `url`; reports requests/s (mean), p99 latency and failures. */
export async function load(options: LoadOptions): Promise<LoadResult & { cpuMs?: number }> {
  const cpuBefore = options.pid === undefined ? 0 : processCpuMs(options.pid);
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: options.headers,
    body: options.body,
    ...(options.requests ? { requests: options.requests.map((r) => ({ method: options.method ?? 'GET', ...r })) } : {}),
    connections: options.connections ?? 50,
    duration: options.durationSeconds ?? 5,
  });
  // Counted over the whole run: autocannon's average is of whole-second samples, too few in a short round.
  const rps = result.requests.total / result.duration;
  const measured = { rps, requests: result.requests.total, p99Ms: result.latency.p99, non2xx: result.non2xx, errors: result.errors };
  return options.pid === undefined ? measured : { ...measured, cpuMs: processCpuMs(options.pid) - cpuBefore };
}

/** One round of the two sides, loaded one after the other under the same conditions. */
export interface Round {
  a: LoadResult & { cpuMs?: number };
  b: LoadResult & { cpuMs?: number };
}

/**
 * Loads A and B in `rounds` short rounds each, interleaved A/B, B/A, A/B … so that the machine's
 * drift (other processes starting and stopping) hits both sides alike and neither always goes
 * first. On a shared machine one long round per side measured the load of the moment as much
 * as the server: a ratio is taken per round, and the median of those is what is reported.
 */
export async function alternate(a: LoadOptions, b: LoadOptions, rounds = ROUNDS): Promise<Round[]> {
  await load({ ...a, durationSeconds: 1 }); // warm-up: JIT and connection pools
  await load({ ...b, durationSeconds: 1 });
  const results: Round[] = [];
  for (let i = 0; i < rounds; i++) {
    if (i % 2 === 0) {
      const first = await load({ ...a, durationSeconds: ROUND_SECONDS });
      results.push({ a: first, b: await load({ ...b, durationSeconds: ROUND_SECONDS }) });
    } else {
      const first = await load({ ...b, durationSeconds: ROUND_SECONDS });
      results.push({ a: await load({ ...a, durationSeconds: ROUND_SECONDS }), b: first });
    }
  }
  return results;
}

/** 9 s per side, about the 10 s two rounds of 5 s took, in finer slices. */
const ROUNDS = 6;
const ROUND_SECONDS = 1.5;

/** A server under load, started for one scenario and closed after it. */
export interface Served {
  url: string;
  /** Its process when it runs in a child: the scenario then reports its CPU time per request. */
  pid?: number;
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
 * Starts the subject and a baseline server, loads them alternately, and reports the median of the
 * rounds' ratios of their request rates against the goal, with the lowest and highest as the
 * range. Fails if the subject answered anything but 2xx.
 */
export async function ratioScenario<S extends Served>(options: RatioScenarioOptions<S>): Promise<ScenarioResult> {
  const { label, minRatio } = options;
  const subject = await options.subject();
  const bare = await options.baseline();
  try {
    const [subjectLoad, bareLoad] = options.requests(subject, bare);
    const rounds = await alternate({ ...subjectLoad, pid: subject.pid }, { ...bareLoad, pid: bare.pid });
    const failed = rounds.reduce((n, r) => n + r.a.non2xx + r.a.errors, 0);
    if (failed > 0) throw new Error(`${label} answered ${failed} non-2xx or failed requests`);
    const ratios = rounds.map((r) => r.a.rps / r.b.rps);
    const ratio = median(ratios);
    const a = median(rounds.map((r) => r.a.rps));
    const b = median(rounds.map((r) => r.b.rps));
    return {
      scenario: options.scenario,
      figures: {
        [`${label}_rps`]: Math.round(a), [`${label}_p99_ms`]: median(rounds.map((r) => r.a.p99Ms)),
        bare_rps: Math.round(b), bare_p99_ms: median(rounds.map((r) => r.b.p99Ms)),
        ratio: Number(ratio.toFixed(3)), ratio_min: Number(Math.min(...ratios).toFixed(3)), ratio_max: Number(Math.max(...ratios).toFixed(3)),
        rounds: rounds.length,
        ...cpuFigures(label, rounds),
      },
      goal: `median ratio of ${rounds.length} rounds >= ${minRatio.toFixed(2)}`,
      met: ratio >= minRatio,
      headline: { agentd: `${Math.round(a)} req/s`, baseline: `${Math.round(b)} req/s`, ratio },
    };
  } finally {
    await Promise.all([subject.close(), bare.close()]);
  }
}

/**
 * CPU time per request of each side over all rounds, and bare's over the subject's: what each
 * request cost its server, which the machine's other load moves much less than it moves requests/s.
 */
function cpuFigures(label: string, rounds: Round[]): Record<string, number> {
  const perRequest = (side: 'a' | 'b') => {
    const cpuMs = rounds.reduce((sum, r) => sum + (r[side].cpuMs ?? Number.NaN), 0);
    return (cpuMs * 1000) / rounds.reduce((sum, r) => sum + r[side].requests, 0);
  };
  const [a, b] = [perRequest('a'), perRequest('b')];
  if (!Number.isFinite(a) || !Number.isFinite(b)) return {};
  return { [`${label}_cpu_us_per_request`]: Number(a.toFixed(1)), bare_cpu_us_per_request: Number(b.toFixed(1)), cpu_ratio: Number((b / a).toFixed(3)) };
}
