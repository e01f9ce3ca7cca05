import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { Database } from '../src/storage/sqlite/index.js';
import { crashCycle, serve, verifyAudit, writeCrashConfig } from './crash/cycle.js';
import type { Acknowledged } from './crash/load.js';

/**
 * `kill -9` at random moments under mixed load, then one clean start: every acknowledged webhook
 * message ran (or still waits), every acknowledged run is stored with its message and a terminal
 * state, every acknowledged chat has its turn, and the audit chain verifies. `npm test` runs a few
 * cycles; `npm run test:crash` runs 20 (CRASH_CYCLES sets the number).
 */
const CYCLES = Number(process.env.CRASH_CYCLES ?? 3);
const home = mkdtempSync(join(tmpdir(), 'agentd-crash-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

it(`loses nothing acknowledged over ${CYCLES} kill -9 cycles under mixed load`, async () => {
  writeCrashConfig(home);
  const acked: Acknowledged = { webhook: [], runs: [], chats: [], jobs: [], pins: [] };
  for (let cycle = 0; cycle < CYCLES; cycle++) {
    await crashCycle(home, acked, 300 + Math.floor(Math.random() * 1200));
  }
  expect(acked.webhook.length).toBeGreaterThan(0);
  expect(acked.runs.length).toBeGreaterThan(0);
  expect(acked.chats.length).toBeGreaterThan(0);
  expect(acked.jobs.length).toBeGreaterThan(0);
  expect(acked.pins.length).toBeGreaterThan(0);

  // A clean start runs what was acknowledged and never run; then a clean stop.
  const last = await serve(home);
  const db = new Database(join(home, 'agentd.db'));
  try {
    const waiting = db.db.prepare('SELECT count(*) AS n FROM channel_inbox WHERE waiting = 1').pluck();
    const unfinished = db.db.prepare("SELECT count(*) FROM runs WHERE status IN ('pending', 'running')").pluck();
    for (let i = 0; i < 600 && ((waiting.get() as number) > 0 || (unfinished.get() as number) > 0); i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    db.close();
  }
  last.child.kill('SIGTERM');
  expect(await last.exited).toBe(0);

  const store = new Database(join(home, 'agentd.db'));
  try {
    const runByMessage = store.db.prepare('SELECT status, error, session_id FROM runs WHERE message = ?');
    const runById = store.db.prepare('SELECT message, status FROM runs WHERE id = ?');
    const userTurn = store.db.prepare("SELECT count(*) FROM turns WHERE session_id = ? AND role = 'user' AND content = ?").pluck();

    const webhookLost = acked.webhook.filter(({ sender, prompt }) => {
      const runs = runByMessage.all(prompt) as { session_id: string }[];
      // Exactly one run each: a repeat of the same X-Request-Id never ran twice.
      return runs.length !== 1 || runs[0]!.session_id !== `webhook:${sender}`;
    });
    const runsLost = acked.runs.filter(({ runId, message }) => {
      const run = runById.get(runId) as { message: string; status: string } | undefined;
      return run?.message !== message || !['complete', 'error'].includes(run.status);
    });
    const chatsLost = acked.chats.filter(({ sessionId, message }) => userTurn.get(sessionId, message) !== 1);
    const jobTask = store.db.prepare('SELECT task FROM jobs WHERE id = ?').pluck();
    // The creation's audit event is part of the acknowledged write: the service answers 201 after it.
    const jobAudit = store.db.prepare("SELECT count(*) FROM audit_events WHERE event_type = 'scheduler.job.create' AND task_id = ?").pluck();
    const jobsLost = acked.jobs.filter(({ jobId, task }) => jobTask.get(jobId) !== task || jobAudit.get(jobId) !== 1);
    const turnPinned = store.db.prepare('SELECT pinned FROM turns WHERE id = ?').pluck();
    const pinsLost = acked.pins.filter(({ turnId }) => turnPinned.get(turnId) !== 1);
    const interrupted = store.db.prepare("SELECT count(*) FROM runs WHERE error = 'interrupted by restart' AND message != ''").pluck().get();
    console.log(`crash test: ${CYCLES} cycles; acknowledged ${acked.webhook.length} webhook messages, ${acked.runs.length} runs, ` +
      `${acked.chats.length} chats, ${acked.jobs.length} jobs, ${acked.pins.length} pins; lost ${webhookLost.length}/${runsLost.length}/` +
      `${chatsLost.length}/${jobsLost.length}/${pinsLost.length}; ${interrupted} runs interrupted (each with its message)`);
    expect(webhookLost).toEqual([]);
    expect(runsLost).toEqual([]);
    expect(chatsLost).toEqual([]);
    expect(jobsLost).toEqual([]);
    expect(pinsLost).toEqual([]);
    expect(store.db.pragma('integrity_check', { simple: true })).toBe('ok');
  } finally {
    store.close();
  }
  const verified = verifyAudit(home);
  expect(verified.output).toMatch(/events verified/);
  expect(verified.status).toBe(0);
}, 30_000 + CYCLES * 15_000);
