import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crashCycle, serve, verifyAudit, writeCrashConfig } from './crash/cycle.js';
import type { Acknowledged } from './crash/load.js';
import { postgresRows, sqliteRows, type StoredRows } from './crash/stored.js';
import { createTestDatabase, postgresTestUrl, type TestDatabase } from './helpers/postgres.js';

/**
 * `kill -9` at random moments under mixed load, then one clean start: every acknowledged webhook
 * message ran (or still waits), every acknowledged run is stored with its message and a terminal
 * state, every acknowledged chat has its turn, and the audit chain verifies. On SQLite and on
 * PostgreSQL (whose writes of a run are grouped into few commits). `npm test` runs 3 cycles on
 * SQLite and 10 on PostgreSQL; `npm run test:crash` runs 20 on each (CRASH_CYCLES sets the number).
 */
const cycles = (byDefault: number) => Number(process.env.CRASH_CYCLES ?? byDefault);

describe('SQLite', () => {
  const home = mkdtempSync(join(tmpdir(), 'agentd-crash-'));
  beforeAll(() => writeCrashConfig(home));
  afterAll(() => rmSync(home, { recursive: true, force: true }));
  crashTest(home, { cycles: cycles(3), loadMs: [300, 1500] }, () => sqliteRows(home));
});

describe.skipIf(postgresTestUrl === null)('PostgreSQL', () => {
  const home = mkdtempSync(join(tmpdir(), 'agentd-crash-pg-'));
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
    writeCrashConfig(home, { extra: ['storage:', '  backend: postgres', `  postgres_url: ${database.url}`] });
  });
  afterAll(async () => {
    rmSync(home, { recursive: true, force: true });
    await database?.drop();
  });
    // Longer loads: a chat and its pin take a few round trips to the database each.
  crashTest(home, { cycles: cycles(10), loadMs: [800, 2800] }, () => postgresRows(database.url));
});

/**
 * The test on a home whose config names the backend, each cycle's load lasting a random time in
 * `loadMs`; `open` reads what that backend stored.
 */
function crashTest(home: string, { cycles: cycleCount, loadMs: [least, most] }: { cycles: number; loadMs: [number, number] },
  open: () => StoredRows | Promise<StoredRows>): void {
  it(`loses nothing acknowledged over ${cycleCount} kill -9 cycles under mixed load`, async () => {
    const acked: Acknowledged = { webhook: [], runs: [], chats: [], jobs: [], pins: [] };
    // On a busy machine a short cycle may end before its first chat or pin is acknowledged: more
    // cycles (up to three times the count) until every kind of write was acknowledged at least once,
    // so the checks below never pass on a kind the load never reached.
    const someKindMissing = () => Object.values(acked).some((writes) => writes.length === 0);
    for (let cycle = 0; cycle < cycleCount || (someKindMissing() && cycle < cycleCount * 3); cycle++) {
      await crashCycle(home, acked, least + Math.floor(Math.random() * (most - least)));
    }
    expect(acked.webhook.length).toBeGreaterThan(0);
    expect(acked.runs.length).toBeGreaterThan(0);
    expect(acked.chats.length).toBeGreaterThan(0);
    expect(acked.jobs.length).toBeGreaterThan(0);
    expect(acked.pins.length).toBeGreaterThan(0);

    // A clean start runs what was acknowledged and never run; then a clean stop.
    const last = await serve(home);
    const watching = await open();
    try {
      for (let i = 0; i < 600 && (await unfinished(watching)) > 0; i++) await new Promise((r) => setTimeout(r, 50));
    } finally {
      await watching.close();
    }
    last.child.kill('SIGTERM');
    expect(await last.exited).toBe(0);

    const store = await open();
    try {
      const one = async <R>(sql: string, params: unknown[]) => (await store.all<R>(sql, params))[0];
      const count = async (sql: string, params: unknown[] = []) => (await one<{ n: number }>(sql, params))!.n;
      const webhookLost = await lost(acked.webhook, async ({ sender, prompt }) => {
        const runs = await store.all<{ session_id: string }>('SELECT session_id FROM runs WHERE message = ?', [prompt]);
        // Exactly one run each: a repeat of the same X-Request-Id never ran twice.
        return runs.length === 1 && runs[0]!.session_id === `webhook:${sender}`;
      });
      const runsLost = await lost(acked.runs, async ({ runId, message }) => {
        const run = await one<{ message: string; status: string }>('SELECT message, status FROM runs WHERE id = ?', [runId]);
        return run?.message === message && ['complete', 'error'].includes(run.status);
      });
      const chatsLost = await lost(acked.chats, async ({ sessionId, message }) =>
        (await count("SELECT CAST(count(*) AS integer) AS n FROM turns WHERE session_id = ? AND role = 'user' AND content = ?", [sessionId, message])) === 1);
      // The creation's audit event is part of the acknowledged write: the service answers 201 after it.
      const jobsLost = await lost(acked.jobs, async ({ jobId, task }) =>
        (await one<{ task: string }>('SELECT task FROM jobs WHERE id = ?', [jobId]))?.task === task &&
        (await count("SELECT CAST(count(*) AS integer) AS n FROM audit_events WHERE event_type = 'scheduler.job.create' AND task_id = ?", [jobId])) === 1);
      const pinsLost = await lost(acked.pins, async ({ turnId }) =>
        (await one<{ pinned: number }>('SELECT CAST(pinned AS integer) AS pinned FROM turns WHERE id = ?', [turnId]))?.pinned === 1);
      const interrupted = await count("SELECT CAST(count(*) AS integer) AS n FROM runs WHERE error = 'interrupted by restart' AND message != ''");
      console.log(`crash test: ${cycleCount} cycles; acknowledged ${acked.webhook.length} webhook messages, ${acked.runs.length} runs, ` +
        `${acked.chats.length} chats, ${acked.jobs.length} jobs, ${acked.pins.length} pins; lost ${webhookLost.length}/${runsLost.length}/` +
        `${chatsLost.length}/${jobsLost.length}/${pinsLost.length}; ${interrupted} runs interrupted (each with its message)`);
      expect(webhookLost).toEqual([]);
      expect(runsLost).toEqual([]);
      expect(chatsLost).toEqual([]);
      expect(jobsLost).toEqual([]);
      expect(pinsLost).toEqual([]);
      const integrity = await store.integrity();
      if (integrity !== null) expect(integrity).toBe('ok');
    } finally {
      await store.close();
    }
    const verified = verifyAudit(home);
    expect(verified.output).toMatch(/events verified/);
    expect(verified.status).toBe(0);
  }, 30_000 + cycleCount * 15_000);
}

/** Channel messages still waiting and runs not finished: what the clean start has yet to work off. */
async function unfinished(store: StoredRows): Promise<number> {
  const [row] = await store.all<{ n: number }>(`SELECT CAST((SELECT count(*) FROM channel_inbox WHERE CAST(waiting AS integer) = 1)
    + (SELECT count(*) FROM runs WHERE status IN ('pending', 'running')) AS integer) AS n`);
  return row!.n;
}

/** The items `kept` does not find stored as acknowledged. */
async function lost<T>(items: T[], kept: (item: T) => Promise<boolean>): Promise<T[]> {
  const missing: T[] = [];
  for (const item of items) if (!(await kept(item))) missing.push(item);
  return missing;
}
