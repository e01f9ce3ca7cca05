import { Agent } from 'node:http';
import { performance } from 'node:perf_hooks';
import { PostgresStorage } from '../src/storage/postgres/index.js';
import type { RunListFilter, RunPage } from '../src/storage/ports/runs.js';
import { getJson } from './get-json.js';
import { BenchDatabase } from './scale.js';
import { startSqliteApp } from './sqlite-app.js';
import { pct, round } from './stats.js';
import type { ScenarioResult } from './types.js';

/**
 * The console's list of runs across sessions on a million runs: fill `runs` in one statement
 * (30 days of api, job and webhook runs), then time the list unfiltered and by status, source and
 * job, 50 a page at offsets 0 and 1,000: on SQLite through real HTTP on the real app, and (with
 * `postgres: true`; needs a server as bench/scale.ts does) through the PostgreSQL run store.
 */
export interface RunsListBenchOptions {
  runs?: number;
  /** Timed requests per query. */
  samples?: number;
  postgres?: boolean;
}

const API_KEY = 'bench-runs-list-key-0123456789';
const DAY_MS = 86_400_000;
const JOBS = 200;
const GOAL_P99_MS = 50;
const QUERIES: Record<string, RunListFilter> = {
  'no filter': {},
  'status=error': { status: 'error' },
  'source=webhook': { source: 'webhook' },
  // Job runs are i mod 20 in 12..16, so job_12 has one run in 200.
  'job_id=job_12': { job_id: 'job_12' },
};

/**
 * Run i: status complete (90 %), error (7 %) or cancelled (3 %); source api (60 %), job (25 %,
 * job `job_<i mod 200>`) or webhook (15 %); created in order over the 30 days before `endMs`.
 * `numbers` yields i in 1..total; `isoOf(seconds)` writes a time as the API does.
 */
function fillRuns(total: number, endMs: number, numbers: string, isoOf: (seconds: string) => string): string {
  const startS = (endMs - 30 * DAY_MS) / 1000;
  const stepS = (30 * DAY_MS) / 1000 / total;
  return `INSERT INTO runs (id, session_id, message, status, resolved_provider, created_at, started_at, finished_at, response, source, job_id)
    SELECT 'run_bench' || i,
      CASE source WHEN 'api' THEN 'ses_' || (i % 5000) WHEN 'job' THEN 'job:job_' || (i % ${JOBS}) ELSE 'webhook:sender' || (i % 50) END,
      'bench task ' || i,
      CASE WHEN i % 100 < 90 THEN 'complete' WHEN i % 100 < 97 THEN 'error' ELSE 'cancelled' END,
      'offline', t, t, t, 'done', source,
      CASE WHEN source = 'job' THEN 'job_' || (i % ${JOBS}) END
    FROM (SELECT i, ${isoOf(`${startS} + i * ${stepS}`)} AS t,
      CASE WHEN i % 20 < 12 THEN 'api' WHEN i % 20 < 17 THEN 'job' ELSE 'webhook' END AS source FROM ${numbers}) AS numbered`;
}

export async function runsListScenario(options: RunsListBenchOptions = {}): Promise<ScenarioResult[]> {
  const total = options.runs ?? 1_000_000;
  const results = [...await sqliteList(total, options.samples ?? 200)];
  if (options.postgres) results.push(...await postgresList(total, options.samples ?? 200));
  return results;
}

async function sqliteList(total: number, samples: number): Promise<ScenarioResult[]> {
  const { app, storage, close } = await startSqliteApp('runs-list', API_KEY);
  try {
    const url = await app.listen();
    const loadStarted = performance.now();
    const numbers = `(WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${total}) SELECT i FROM n)`;
    storage.database.db.exec(fillRuns(total, Date.now(), numbers, (s) => `strftime('%Y-%m-%dT%H:%M:%fZ', ${s}, 'unixepoch')`));
    storage.database.db.exec('ANALYZE');
    const loadS = (performance.now() - loadStarted) / 1000;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      return [loadResult('SQLite', total, loadS), ...await timeQueries('SQLite, HTTP', samples, (filter, offset) => {
        const query = new URLSearchParams({ ...(filter as Record<string, string>), limit: '50', offset: String(offset) });
        return getJson<RunPage>(agent, `${url}/api/v1/runs?${query}`, API_KEY);
      })];
    } finally {
      agent.destroy();
    }
  } finally {
    await close();
  }
}

async function postgresList(total: number, samples: number): Promise<ScenarioResult[]> {
  const db = await BenchDatabase.create();
  try {
    const storage = await PostgresStorage.open(db.url);
    try {
      const loadStarted = performance.now();
      await storage.database.query(fillRuns(total, Date.now(), `generate_series(1, ${total}) AS i`,
        (s) => `to_char(to_timestamp(${s}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`));
      // As autovacuum leaves a table that has settled: statistics, and a visibility map, without
      // which every index entry counted would cost a heap visit.
      await storage.database.query('VACUUM ANALYZE runs');
      const loadS = (performance.now() - loadStarted) / 1000;
      return [loadResult('PostgreSQL', total, loadS),
        ...await timeQueries('PostgreSQL, store', samples, (filter, offset) => storage.runs.list({ ...filter, limit: 50, offset }))];
    } finally {
      await storage.close();
    }
  } finally {
    await db.drop();
  }
}

function loadResult(backend: string, total: number, loadS: number): ScenarioResult {
  return {
    scenario: `runs list: fill ${total.toLocaleString('en')} runs on ${backend} (30 days, ${JOBS} jobs)`,
    figures: { load_s: round(loadS) },
    goal: 'load < 120 s',
    met: loadS < 120,
  };
}

/** Each query at offsets 0 and 1,000: its p50 and p99 over `samples` timed calls after one untimed. */
async function timeQueries(label: string, samples: number, list: (filter: RunListFilter, offset: number) => Promise<RunPage>): Promise<ScenarioResult[]> {
  const results: ScenarioResult[] = [];
  for (const [name, filter] of Object.entries(QUERIES)) {
    for (const offset of [0, 1_000]) {
      const first = await list(filter, offset);
      const times: number[] = [];
      for (let i = 0; i < samples; i++) {
        const started = performance.now();
        await list(filter, offset);
        times.push(performance.now() - started);
      }
      const [p50, p99] = [pct(times, 50), pct(times, 99)];
      const matched = `${first.total.toLocaleString('en')}${first.total_capped ? '+' : ''}`;
      results.push({
        scenario: `runs list (${label}): ${name}, limit 50, offset ${offset.toLocaleString('en')}`,
        figures: { total: matched, returned: first.runs.length, p50_ms: round(p50), p99_ms: round(p99), max_ms: round(pct(times, 100)), samples },
        goal: `p99 <= ${GOAL_P99_MS} ms, a full page`,
        met: p99 <= GOAL_P99_MS && first.runs.length === 50,
        headline: { agentd: `p50 ${round(p50)} ms, p99 ${round(p99)} ms (${matched} matched)` },
      });
    }
  }
  return results;
}
