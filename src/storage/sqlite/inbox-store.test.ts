import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NewInboxMessage } from '../ports/inbox.js';
import { SqliteStorage } from './index.js';

const message = (n: number, sender: string): NewInboxMessage => ({
  channel: 'webhook', sender, content: `task ${n}`, metadata: {}, received_at: `2026-01-01T00:00:0${n}.000Z`, request_id: null, run_id: `run_${n}`,
});
const RULES = { duplicatesSince: '2025-12-31T00:00:00.000Z', capacity: 1000 };
const TERMS = { owner: 'r1', now: '2026-01-01T00:01:00.000Z', until: '2026-01-01T00:01:30.000Z', limit: 10 };

describe('SqliteInboxStore starts', () => {
  let dir: string;
  let storage: SqliteStorage;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agentd-inbox-'));
    storage = new SqliteStorage(join(dir, 'agentd.db'));
  });
  afterEach(async () => {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('rolls back and rejects every start of a write when one fails, and counts what waits again', async () => {
    for (const [n, sender] of [[1, 'a'], [2, 'b'], [3, 'a']] as const) await storage.inbox.accept(message(n, sender), RULES);
    // The start of run_2 fails inside the write that also starts run_1.
    storage.database.db.exec(`CREATE TEMP TRIGGER refuse_run_2 BEFORE UPDATE ON channel_inbox WHEN old.run_id = 'run_2'
      BEGIN SELECT RAISE(ABORT, 'refused'); END`);
    const results = await Promise.allSettled([storage.inbox.markStarted('run_1', TERMS), storage.inbox.markStarted('run_2', TERMS)]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    // Nothing of it stayed: run_1 still waits, its sender's next one is not claimed.
    expect((await storage.inbox.waiting('webhook', 10)).map((m) => m.run_id)).toEqual(['run_1', 'run_2', 'run_3']);
    storage.database.db.exec('DROP TRIGGER refuse_run_2');
    // Started again later, each finds the right next one: the counts were read again from the file.
    const [afterA, afterB] = await Promise.all([storage.inbox.markStarted('run_1', TERMS), storage.inbox.markStarted('run_2', TERMS)]);
    expect(afterA?.run_id).toBe('run_3');
    expect(afterB).toBeUndefined();
    expect((await storage.inbox.waiting('webhook', 10)).map((m) => m.run_id)).toEqual(['run_3']);
  });

  it('starts in a later write what was asked for after a write ran', async () => {
    for (const [n, sender] of [[1, 'a'], [2, 'b']] as const) await storage.inbox.accept(message(n, sender), RULES);
    const first = storage.inbox.markStarted('run_1');
    await first;
    // The first write has run and committed: this one is a write of its own, not left waiting.
    await storage.inbox.markStarted('run_2');
    expect(await storage.inbox.waiting('webhook', 10)).toEqual([]);
  });

  it('rejects the starts still waiting when the database closes before their write ran', async () => {
    await storage.inbox.accept(message(1, 'a'), RULES);
    storage.database.close();
    await expect(storage.inbox.markStarted('run_1')).rejects.toThrow(/closed/);
  });
});
