import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import pg from 'pg';
import { AuditLog } from '../src/audit/log.js';
import { PostgresStorage } from '../src/storage/postgres/index.js';
import { DatabaseCost, type DatabaseCostReading } from './database-cost.js';
import { busyPercent, processCpuMs, readMachineCpu, type MachineCpuReading } from './machine-cpu.js';
import { client, measureRuns, startUpstream, waitFor } from './agent-support.js';
import { load } from './load.js';
import { startChildServer, type ChildServer } from './servers.js';
import { pct, round } from './stats.js';
import type { ScenarioResult } from './types.js';

/**
 * Scaling out (issue 15): agentd on SQLite, on PostgreSQL + Redis, and as two replicas of one
 * service sharing them, each in its own process, the load spread by this client:
 *  (a) offline runs end to end (POST /runs + event stream to run.complete) and authenticated
 *      GET /api/v1/health, on 1 replica SQLite, 1 replica PostgreSQL, 2 replicas PostgreSQL;
 *  (b) cross-replica delivery: a run executing on A, watched on A and on B; the time from A's
 *      viewer getting the terminal frame (A stored it and fanned it out) to B's viewer getting it
 *      (through Redis pub/sub), p50/p99;
 *  (c) the audit hash chain on PostgreSQL with 3 writers (3 connection pools, as 3 replicas).
 * Needs PostgreSQL and Redis: AGENTD_BENCH_POSTGRES_URL (default AGENTD_TEST_POSTGRES_URL, then
 * postgres://root@127.0.0.1:5432/postgres; a user that may create databases) and
 * AGENTD_BENCH_REDIS_URL (default AGENTD_TEST_REDIS_URL, then redis://127.0.0.1:6379). It creates
 * its own database and key prefix and removes both.
 */
export interface ScaleBenchOptions {
  runSeconds?: number;
  runClients?: number;
  healthSeconds?: number;
  deliverySamples?: number;
  auditSeconds?: number;
}

const GOALS = { pgRunsRatio: 0.5, deliveryP99Ms: 20, auditEventsPerS: 2_000 };
const adminUrl = process.env.AGENTD_BENCH_POSTGRES_URL || process.env.AGENTD_TEST_POSTGRES_URL || 'postgres://root@127.0.0.1:5432/postgres';
const redisUrl = process.env.AGENTD_BENCH_REDIS_URL || process.env.AGENTD_TEST_REDIS_URL || 'redis://127.0.0.1:6379';

export async function scaleScenarios(options: ScaleBenchOptions = {}): Promise<ScenarioResult[]> {
  const db = await BenchDatabase.create();
  const redisKeyPrefix = `agentd-bench:${randomBytes(6).toString('hex')}:`;
  const postgres = { storage: { backend: 'postgres', postgres_url: db.url, redis_url: redisUrl } };
  try {
    const runs = await throughput(options, {
      sqlite_1: { start: () => startReplicas(1, {}) },
      pg_1: { start: () => startReplicas(1, { config: postgres, redisKeyPrefix }), databaseUrl: db.url },
      pg_2: { start: () => startReplicas(2, { config: postgres, redisKeyPrefix }), databaseUrl: db.url },
    });
    return [runs, await delivery(options, db.url, redisKeyPrefix), await auditChain(options, db.url)];
  } finally {
    await db.drop();
    await deleteKeys(redisKeyPrefix);
  }
}

function startReplicas(count: number, args: Record<string, unknown>): Promise<ChildServer[]> {
  // One after the other: the first migrates the new database, the next find it current.
  return Array.from({ length: count }).reduce<Promise<ChildServer[]>>(
    async (started) => [...(await started), await startChildServer('agentd', args)], Promise.resolve([]));
}

async function closeAll(servers: ChildServer[]): Promise<void> {
  await Promise.all(servers.map((s) => s.close()));
}

/** One setup of (a): its replicas, and the database they share (PostgreSQL only), whose own cost is measured. */
interface Setup {
  start(): Promise<ChildServer[]>;
  databaseUrl?: string;
}

/**
 * (a): runs/s and health requests/s per setup, each setup started alone (never two at once); on
 * PostgreSQL also what each run cost the database: its commits and its backends' CPU.
 */
async function throughput(options: ScaleBenchOptions, setups: Record<string, Setup>): Promise<ScenarioResult> {
  const clients = options.runClients ?? 32;
  const figures: Record<string, number> = {};
  for (const [name, setup] of Object.entries(setups)) {
    const servers = await setup.start();
    const agent = new Agent({ keepAlive: true, maxSockets: clients * 2 });
    const cost = setup.databaseUrl ? await DatabaseCost.connect(setup.databaseUrl) : null;
    try {
      let before: DatabaseCostReading | null = null;
      let cpuBefore: CpuReading | null = null;
      const runs = await measureRuns(servers, agent, clients, options.runSeconds ?? 5, async () => {
        before = await cost?.read() ?? null;
        cpuBefore = readCpu(servers);
      });
      const cpu = cpuBetween(cpuBefore!, readCpu(servers));
      if (runs.failures > 0) throw new Error(`${name}: ${runs.failures} runs did not complete`);
      const count = runs.latencies.length;
      figures[`${name}_runs_per_s`] = Math.round(count / runs.elapsedS);
      figures[`${name}_run_p99_ms`] = round(pct(runs.latencies, 99));
      figures[`${name}_replica_cpu_ms_per_run`] = round(cpu.replicasMs / count);
      figures[`${name}_client_cpu_ms_per_run`] = round(cpu.clientMs / count);
      figures[`${name}_machine_busy_pct`] = Math.round(cpu.busyPct);
      if (cost && before) {
        const spent = DatabaseCost.between(before, await cost.read());
        figures[`${name}_commits_per_run`] = round(spent.commits / runs.latencies.length);
        figures[`${name}_db_cpu_ms_per_run`] = round(spent.cpuMs / runs.latencies.length);
      }
      // What the machine could do if every core did nothing but this: its ceiling for this setup.
      const cpuPerRun = (cpu.replicasMs + cpu.clientMs) / count + (figures[`${name}_db_cpu_ms_per_run`] ?? 0);
      figures[`${name}_cpu_ms_per_run`] = round(cpuPerRun);
      figures[`${name}_cpu_bound_runs_per_s`] = Math.round((availableParallelism() * 1000) / cpuPerRun);
      // The connections split evenly over the replicas, loaded at the same time.
      const health = await Promise.all(servers.map((s) => load({
        url: `${s.url}/api/v1/health`, headers: { authorization: `Bearer ${s.apiKey}` },
        connections: Math.ceil(50 / servers.length), durationSeconds: options.healthSeconds ?? 5,
      })));
      if (health.some((h) => h.non2xx > 0 || h.errors > 0)) throw new Error(`${name}: health answered non-2xx or failed`);
      figures[`${name}_health_rps`] = Math.round(health.reduce((sum, h) => sum + h.rps, 0));
    } finally {
      agent.destroy();
      await cost?.close();
      await closeAll(servers);
    }
  }
  const ratio = figures.pg_1_runs_per_s! / figures.sqlite_1_runs_per_s!;
  figures.pg_1_vs_sqlite_runs = round(ratio);
  figures.pg_2_vs_sqlite_runs = round(figures.pg_2_runs_per_s! / figures.sqlite_1_runs_per_s!);
  return {
    scenario: `scale: offline runs end to end (${clients} clients) and authenticated health, 1 replica SQLite / 1 PostgreSQL / 2 PostgreSQL`,
    figures,
    goal: `PostgreSQL runs/s >= ${GOALS.pgRunsRatio} x SQLite (1 replica each)`,
    met: ratio >= GOALS.pgRunsRatio,
    headline: {
      agentd: `${figures.pg_1_runs_per_s} runs/s on PostgreSQL (2 replicas: ${figures.pg_2_runs_per_s})`,
      baseline: `${figures.sqlite_1_runs_per_s} runs/s on SQLite`,
      ratio: round(ratio),
    },
  };
}

/**
 * Where the cores went during a measurement, so a throughput limit can be told from a saturated
 * machine: the replicas' own CPU, the load generator's (this process), and how busy all cores were.
 */
interface CpuReading {
  replicasMs: number;
  clientMs: number;
  machine: MachineCpuReading;
}

function readCpu(servers: ChildServer[]): CpuReading {
  const { user, system } = process.cpuUsage();
  return {
    replicasMs: servers.reduce((sum, s) => sum + processCpuMs(s.pid), 0),
    clientMs: (user + system) / 1000,
    machine: readMachineCpu(),
  };
}

function cpuBetween(before: CpuReading, after: CpuReading): { replicasMs: number; clientMs: number; busyPct: number } {
  return {
    replicasMs: after.replicasMs - before.replicasMs,
    clientMs: after.clientMs - before.clientMs,
    busyPct: busyPercent(before.machine, after.machine),
  };
}

/** (b): the terminal frame of a run on A, as seen by a viewer on A and by one on B. */
async function delivery(options: ScaleBenchOptions, databaseUrl: string, redisKeyPrefix: string): Promise<ScenarioResult> {
  const samples = options.deliverySamples ?? 200;
  const upstream = await startUpstream();
  const key = 'sk-bench-0123456789abcdefghijklmnop';
  const [a, b] = (await startReplicas(2, {
    redisKeyPrefix,
    env: { OPENAI_API_KEY: key },
    config: {
      storage: { backend: 'postgres', postgres_url: databaseUrl, redis_url: redisUrl },
      providers: { default: 'openai', openai: { api_key_env: 'OPENAI_API_KEY', model: 'gpt-4.1-mini', base_url: `${upstream.url}/v1` } },
      network: { allowed_hosts: [upstream.host] },
    },
  })) as [ChildServer, ChildServer];
  const agent = new Agent({ keepAlive: true });
  const crossMs: number[] = [];
  const answerToBMs: number[] = [];
  try {
    const api = client(a, agent);
    for (let i = 0; i < samples + 10; i++) {
      const runId = (await api.json('POST', '/api/v1/runs', { message: `question ${i}` })).data.run_id as string;
      await waitFor(() => upstream.waiting === 1);
      const [onA, onB] = [watch(a, runId), watch(b, runId)];
      await Promise.all([onA.started, onB.started]);
      const answered = performance.now();
      upstream.answerNow();
      const [atA, atB] = await Promise.all([onA.terminal, onB.terminal]);
      if (i < 10) continue; // warm-up
      crossMs.push(atB - atA);
      answerToBMs.push(atB - answered);
    }
  } finally {
    agent.destroy();
    await closeAll([a, b]);
    await upstream.close();
  }
  const p99 = pct(crossMs, 99);
  return {
    scenario: `scale: cross-replica SSE delivery, run on A, viewers on A and B (${samples} runs)`,
    figures: {
      a_to_b_p50_ms: round(pct(crossMs, 50)), a_to_b_p99_ms: round(p99),
      answer_to_b_p50_ms: round(pct(answerToBMs, 50)), answer_to_b_p99_ms: round(pct(answerToBMs, 99)),
    },
    goal: `a_to_b_p99_ms <= ${GOALS.deliveryP99Ms}`,
    met: p99 <= GOALS.deliveryP99Ms,
    headline: { agentd: `p50 ${round(pct(crossMs, 50))} ms, p99 ${round(p99)} ms` },
  };
}

/** A viewer of one run on its own connection: `started` at run.start, `terminal` the moment the terminal frame arrived. */
function watch(server: ChildServer, runId: string): { started: Promise<void>; terminal: Promise<number> } {
  let markStarted!: () => void;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const terminal = new Promise<number>((resolve, reject) => {
    const req = request(`${server.url}/api/v1/runs/${runId}/events`, { agent: false, headers: { authorization: `Bearer ${server.apiKey}` } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
        if (body.includes('event: run.start')) markStarted();
        if (/\nevent: run\.(complete|error|cancelled)\n/.test(body)) {
          resolve(performance.now());
          res.destroy();
        }
      });
      res.on('end', () => reject(new Error(`stream of ${runId} ended without a terminal event`)));
    });
    req.on('error', reject);
    req.end();
  });
  return { started, terminal };
}

/**
 * (c): 3 writers, each its own pool as a replica has, appending as fast as the chain allows, first
 * with 4 appends in flight per writer, then 32 (a busy replica): events emitted while a chain
 * transaction is open share the next one, so throughput grows with concurrency.
 */
async function auditChain(options: ScaleBenchOptions, databaseUrl: string): Promise<ScenarioResult> {
  const seconds = options.auditSeconds ?? 5;
  const storages = ['rep_a', 'rep_b', 'rep_c'].map((replicaId) => new PostgresStorage(databaseUrl, { replicaId, poolSize: 4 }));
  try {
    const logs = storages.map((s) => new AuditLog(s.audit));
    const before = await logs[0]!.count();
    const [low, high] = [await appendFor(logs, 4, seconds), await appendFor(logs, 32, seconds)];
    const verdict = await logs[1]!.verify();
    const stored = (await logs[2]!.count()) - before;
    return {
      scenario: `scale: audit hash chain on PostgreSQL, 3 writers, ${seconds} s each with 4 and 32 appends in flight per writer`,
      figures: {
        events_per_s_4_in_flight: Math.round(low.perSecond), events_per_s_32_in_flight: Math.round(high.perSecond),
        stored, chain: verdict.ok ? 'ok' : 'BROKEN',
      },
      goal: `events_per_s_4_in_flight >= ${GOALS.auditEventsPerS}, every event stored, the chain verifies`,
      met: low.perSecond >= GOALS.auditEventsPerS && verdict.ok && stored === low.written + high.written,
      headline: { agentd: `${Math.round(low.perSecond)} events/s (4 in flight), ${Math.round(high.perSecond)} (32 in flight)` },
    };
  } finally {
    await Promise.all(storages.map((s) => s.close()));
  }
}

async function appendFor(logs: AuditLog[], inFlight: number, seconds: number): Promise<{ written: number; perSecond: number }> {
  let written = 0;
  const start = performance.now();
  const until = start + seconds * 1000;
  await Promise.all(logs.flatMap((log, writer) => Array.from({ length: inFlight }, async () => {
    while (performance.now() < until) {
      await log.emit({ event_type: 'bench.write', category: 'bench', result: 'allow', subsystem: 'bench', detail: { writer } });
      written++;
    }
  })));
  return { written, perSecond: written / ((performance.now() - start) / 1000) };
}

export class BenchDatabase {
  private constructor(readonly name: string, readonly url: string) {}

  static async create(): Promise<BenchDatabase> {
    const name = `agentd_bench_${randomBytes(6).toString('hex')}`;
    await admin(`CREATE DATABASE ${name}`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    // Migrated once here, so the replicas started next all find it current.
    await (await PostgresStorage.open(url.toString())).close();
    return new BenchDatabase(name, url.toString());
  }

  drop(): Promise<void> {
    return admin(`DROP DATABASE IF EXISTS ${this.name} WITH (FORCE)`);
  }
}

async function admin(sql: string): Promise<void> {
  const connection = new pg.Client({ connectionString: adminUrl });
  await connection.connect();
  try {
    await connection.query(sql);
  } finally {
    await connection.end();
  }
}

async function deleteKeys(prefix: string): Promise<void> {
  const redis = new Redis(redisUrl);
  try {
    for (let cursor = '0'; ;) {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      if (keys.length > 0) await redis.del(...keys);
      if (next === '0') break;
      cursor = next;
    }
  } finally {
    redis.disconnect();
  }
}
