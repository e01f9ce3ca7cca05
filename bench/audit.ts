import { statSync } from 'node:fs';
import { Agent } from 'node:http';
import { loadavg } from 'node:os';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { AuditPage, AuditSink } from '../src/storage/ports/audit.js';
import { AuditEventSource, hostName } from './audit-events.js';
import { getJson } from './get-json.js';
import { startSqliteApp } from './sqlite-app.js';
import { pct, round } from './stats.js';
import type { ScenarioResult } from './types.js';
import { homeFile } from '../src/config/home-layout.js';

/**
 * The audit browser on a million events: load a month of mixed events through the store, then
 * time the console's typical queries (each with its facets and total) through real HTTP on
 * the real app, while the service writes 1,000 audit events a second through its audit log.
 */
export interface AuditBenchOptions {
  events?: number;
  /** Timed requests per query. */
  samples?: number;
  writesPerSecond?: number;
}

const API_KEY = 'bench-audit-key-0123456789';
const LOAD_BATCH = 20_000;
const DAY_MS = 86_400_000;
const WRITE_TICK_MS = 10;
const GOAL = { p50: 50, p99: 150 };

export async function auditScenario(options: AuditBenchOptions = {}): Promise<ScenarioResult[]> {
  const total = options.events ?? 1_000_000;
  const samples = options.samples ?? 60;
  const writesPerSecond = options.writesPerSecond ?? 1_000;
  const { app, home, storage, close } = await startSqliteApp('audit', API_KEY);
  const store = storage.audit;
  try {
    const url = await app.listen();
    const endMs = Date.now();
    const startMs = endMs - 30 * DAY_MS;
    const source = new AuditEventSource(total, startMs, endMs);
    let loadMs = 0;
    for (let from = 0; from < total; from += LOAD_BATCH) {
      const batch = source.batch(from, Math.min(LOAD_BATCH, total - from));
      const started = performance.now();
      store.appendMany(batch);
      loadMs += performance.now() - started;
    }
    const indexStarted = performance.now();
    store.search.catchUp();
    const indexS = (performance.now() - indexStarted) / 1000;
    storage.database.db.pragma('wal_checkpoint(TRUNCATE)');
    const dbMb = statSync(homeFile(home, 'database')).size / 1e6;

    // A day in the middle of the month, not aligned to hours, given with an offset as a console would.
    const daySince = new Date(startMs + 12.4 * DAY_MS);
    const local = (ms: number) => `${new Date(ms + 2 * 3_600_000).toISOString().slice(0, 19)}+02:00`;
    const queries: Record<string, string> = {
      'no filter': '',
      'result=deny': 'result=deny',
      'subsystem=auth&severity=warning': 'subsystem=auth&severity=warning',
      'q=host name (rare substring)': `q=${hostName(4217)}`,
      'q=/upload (common substring)': 'q=%2Fupload',
      'one-day range (offset, not hour-aligned)': `since=${encodeURIComponent(local(daySince.getTime()))}&until=${encodeURIComponent(local(daySince.getTime() + DAY_MS))}`,
      'matches nothing': 'session_id=sess_nobody',
      'result=allow, page at offset 10,000': 'result=allow&offset=10000',
    };

    const writer = startWriter(app.audit, source, total, writesPerSecond);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const measured: { name: string; totals: number; estimated: boolean; times: number[] }[] = [];
    const loopDelay = monitorEventLoopDelay({ resolution: 5 });
    loopDelay.enable();
    const phaseStarted = performance.now();
    for (const [name, query] of Object.entries(queries)) {
      const get = () => getJson<AuditPage>(agent, `${url}/api/v1/audit?${query}`, API_KEY);
      const first = await get();
      const times: number[] = [];
      for (let i = 0; i < samples; i++) {
        const started = performance.now();
        await get();
        times.push(performance.now() - started);
      }
      measured.push({ name, totals: first.total, estimated: first.total_is_estimate, times });
    }
    const phaseS = (performance.now() - phaseStarted) / 1000;
    const writes = await writer.stop();
    loopDelay.disable();
    agent.destroy();
    const lag = (storage.database.db.prepare('SELECT max(seq) FROM audit_events').pluck().get() as number) - store.search.indexedThrough;

    const results: ScenarioResult[] = [{
      scenario: `audit: load ${total.toLocaleString('en')} events (30 days) through the store`,
      figures: {
        load_s: round(loadMs / 1000), events_per_s: Math.round(total / (loadMs / 1000)), search_index_s: round(indexS),
        db_mb: Math.round(dbMb), load_average_1m: round(loadavg()[0]!),
      },
      goal: 'load < 120 s',
      met: loadMs < 120_000,
    }];
    for (const { name, totals, estimated, times } of measured) {
      const p50 = pct(times, 50);
      const p99 = pct(times, 99);
      results.push({
        scenario: `audit query with facets: ${name}`,
        figures: { total: estimated ? `about ${totals}` : totals, p50_ms: round(p50), p99_ms: round(p99), max_ms: round(pct(times, 100)), samples },
        goal: `p50 <= ${GOAL.p50} ms and p99 <= ${GOAL.p99} ms while writing`,
        met: p50 <= GOAL.p50 && p99 <= GOAL.p99,
        headline: { agentd: `p50 ${round(p50)} ms, p99 ${round(p99)} ms (${estimated ? 'about ' : ''}${totals.toLocaleString('en')} matched)` },
      });
    }
    results.push({
      scenario: `audit writes during the queries (${writesPerSecond}/s asked)`,
      figures: {
        written: writes.latencies.length, per_s: Math.round(writes.latencies.length / phaseS), failed: writes.failed,
        write_p50_ms: round(pct(writes.latencies, 50)), write_p99_ms: round(pct(writes.latencies, 99)),
        search_index_lag_events: lag, event_loop_delay_p99_ms: round(loopDelay.percentile(99) / 1e6),
        event_loop_delay_max_ms: round(loopDelay.max / 1e6),
      },
      goal: `>= ${Math.round(writesPerSecond * 0.9)} writes/s kept up, none failed`,
      met: writes.failed === 0 && writes.latencies.length / phaseS >= writesPerSecond * 0.9,
    });
    return results;
  } finally {
    await close();
  }
}

/**
 * Emits audit events through the app's audit log at `perSecond`, each stamped now, and records
 * how long each took to be stored. Ticks that fall behind catch up, so the rate is what was asked.
 */
function startWriter(log: AuditSink, source: AuditEventSource, first: number, perSecond: number) {
  const latencies: number[] = [];
  const pending = new Set<Promise<void>>();
  let failed = 0;
  let n = first;
  const started = performance.now();
  const timer = setInterval(() => {
    const due = Math.floor(((performance.now() - started) / 1000) * perSecond) - (n - first);
    for (let i = 0; i < due; i++) {
      const { id: _id, timestamp: _timestamp, ...input } = source.event(n++, new Date().toISOString());
      const begun = performance.now();
      const write = log.emit(input).then(
        () => { latencies.push(performance.now() - begun); },
        () => { failed++; },
      ).finally(() => pending.delete(write));
      pending.add(write);
    }
  }, WRITE_TICK_MS);
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all(pending);
      return { latencies, failed };
    },
  };
}
