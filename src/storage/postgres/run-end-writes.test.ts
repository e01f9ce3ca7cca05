import { describe, expect, it } from 'vitest';
import { postgresTestUrl } from '../../../test/helpers/postgres.js';
import { usePostgresStorage } from '../../../test/helpers/postgres-storage.js';
import type { CostEntry } from '../ports/costs.js';
import type { AuditEvent } from '../ports/audit.js';
import type { RunOutcome, RunRecord } from '../ports/runs.js';
import { RunClosedError } from '../ports/errors.js';
import { interruptRun } from './run-store.js';
import { BATCHED_WAIT_MS } from './audit-store.js';

const record = (run_id: string, session_id: string): RunRecord => ({
  run_id, session_id, message: 'hi', status: 'pending', provider: null, resolved_provider: 'offline',
  created_at: '2026-01-01T00:00:00.000Z', started_at: null, finished_at: null, response: null, error: null,
  tools_used: [], cost: { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 }, source: 'api', job_id: null, model: null, first_token_at: null,
});
const outcome: RunOutcome = {
  status: 'complete', finished_at: '2026-01-01T00:00:02.000Z', response: 'done', error: null, tools_used: [], model: null, first_token_at: null,
  cost: { prompt_tokens: 3, completion_tokens: 4, cost_usd: 0.5 },
};
const cost = (session_id: string, run_id: string, cost_usd: number): CostEntry => ({
  session_id, run_id, provider: 'offline', model: 'offline', prompt_tokens: 1, completion_tokens: 2, cost_usd, timestamp: '2026-01-01T00:00:01.000Z',
});
const turn = (session_id: string, run_id: string, role: 'user' | 'assistant', content: string) =>
  ({ session_id, role, content, provider: 'offline', run_id, timestamp: '2026-01-01T00:00:01.000Z' });
const event = (id: string, batched: string): AuditEvent => ({
  id, timestamp: '2026-01-01T00:00:00.000Z', event_type: 'test.event', category: 'test', result: 'allow', severity: 'info',
  actor: null, source: null, subsystem: null, action: null, session_id: null, task_id: null, detail: { batched },
});

/** What a run's agent turn writes goes with the run's end (`RunEndWrites`), its context with its creation. */
describe.skipIf(postgresTestUrl === null)('PostgreSQL run end writes', () => {
  const pg = usePostgresStorage({ poolSize: 3, replicaId: 'replica-a' });

  const tx = async (sql: string, runId: string) => (await pg.storage.database.query<{ tx: string }>(sql, [runId])).rows.map((r) => r.tx);

  it('writes a run\'s costs and turns in the commit of its end, acknowledging them with it', async () => {
    const session = await pg.storage.sessionStore({}).create({ provider: 'offline' });
    await pg.storage.runs.create(record('run_w', session.id));
    const acknowledged: string[] = [];
    const writes = [
      pg.storage.runs.endWrites.cost('run_w', cost(session.id, 'run_w', 0.25)).then(() => acknowledged.push('cost 1')),
      pg.storage.runs.endWrites.cost('run_w', cost(session.id, 'run_w', 0.25)).then(() => acknowledged.push('cost 2')),
      pg.storage.runs.endWrites.turns('run_w', [turn(session.id, 'run_w', 'user', 'hi'), turn(session.id, 'run_w', 'assistant', 'done')])
        .then(() => acknowledged.push('turns')),
    ];
    // Kept: nothing is stored, nor acknowledged, before the end.
    expect(await pg.storage.costs.sessionSpend(session.id)).toBe(0);
    expect(await pg.storage.turns.history(session.id, 10)).toEqual([]);
    expect(acknowledged).toEqual([]);
    await pg.storage.runs.finish('run_w', outcome, { id: 1, name: 'run.complete', data: '{}' });
    await Promise.all(writes);
    expect(acknowledged).toEqual(['cost 1', 'cost 2', 'turns']);
    expect(await pg.storage.costs.sessionSpend(session.id)).toBe(0.5);
    expect((await pg.storage.turns.history(session.id, 10)).map((t) => t.content)).toEqual(['hi', 'done']);
    expect((await pg.storage.sessionStore({}).get(session.id))!.turn_count).toBe(2);
    const [end] = await tx(`SELECT xmin::text AS tx FROM run_events WHERE run_id = $1`, 'run_w');
    expect(new Set([...await tx(`SELECT xmin::text AS tx FROM costs WHERE run_id = $1`, 'run_w'),
      ...await tx(`SELECT xmin::text AS tx FROM turns WHERE run_id = $1`, 'run_w')])).toEqual(new Set([end]));
  });

  it('writes them on their own when another replica ended the run meanwhile', async () => {
    await pg.storage.runs.create(record('run_c', 'ses_c'));
    const written = Promise.all([
      pg.storage.runs.endWrites.cost('run_c', cost('ses_c', 'run_c', 0.75)),
      pg.storage.runs.endWrites.turns('run_c', [turn('ses_c', 'run_c', 'user', 'asked')]),
    ]);
    await pg.storage.database.transaction((t) => interruptRun(t, 'run_c', '2026-01-01T00:01:00.000Z', 'replica stopped'));
    await expect(pg.storage.runs.finish('run_c', outcome, { id: 2, name: 'run.complete', data: '{}' })).rejects.toBeInstanceOf(RunClosedError);
    await written;
    expect(await pg.storage.costs.sessionSpend('ses_c')).toBe(0.75);
    expect((await pg.storage.turns.history('ses_c', 10)).map((t) => t.content)).toEqual(['asked']);
  });

  it('writes them on their own when the end is given up (flush)', async () => {
    await pg.storage.runs.create(record('run_f', 'ses_f'));
    const written = pg.storage.runs.endWrites.cost('run_f', cost('ses_f', 'run_f', 1));
    await pg.storage.runs.endWrites.flush('run_f');
    await written;
    expect(await pg.storage.costs.sessionSpend('ses_f')).toBe(1);
    expect((await pg.storage.runs.get('run_f'))!.status).toBe('pending');
  });

  it('reads the session\'s last turns in the commit that creates a run, and hands them over only when it was created', async () => {
    await pg.storage.turns.addMany([turn('ses_h', 'run_0', 'user', 'one'), turn('ses_h', 'run_0', 'assistant', 'two'), turn('ses_h', 'run_0', 'user', 'three')]);
    const read: string[][] = [];
    const history = { limit: 2, read: (turns: { content: string }[]) => read.push(turns.map((t) => t.content)) };
    const lease = { expires_at: '2026-01-01T00:01:00.000Z', now: '2026-01-01T00:00:00.000Z' };
    expect(await pg.storage.runs.createClaimed(record('run_h1', 'ses_h'), lease, { history })).toBe(true);
    expect(read).toEqual([['two', 'three']]);
    // Busy: not created, nothing handed over.
    expect(await pg.storage.runs.createClaimed(record('run_h2', 'ses_h'), lease, { history })).toBe(false);
    expect(read).toHaveLength(1);
  });

  it('holds a batched audit event for the chain\'s next transaction, or starts one itself after a short wait', async () => {
    const started = Date.now();
    await pg.storage.audit.append(event('evt_alone', 'alone'), { batched: true });
    expect(Date.now() - started).toBeGreaterThanOrEqual(BATCHED_WAIT_MS - 5);
    await Promise.all([
      pg.storage.audit.append(event('evt_waits', 'waits'), { batched: true }),
      pg.storage.audit.append(event('evt_starts', 'starts')),
    ]);
    const { rows } = await pg.storage.database.query<{ id: string; tx: string }>(
      `SELECT id, xmin::text AS tx FROM audit_events WHERE id IN ('evt_waits', 'evt_starts') ORDER BY seq`);
    expect(rows.map((r) => r.id)).toEqual(['evt_waits', 'evt_starts']);
    expect(rows[0]!.tx).toBe(rows[1]!.tx);
    expect(await pg.storage.audit.verify()).toMatchObject({ ok: true });
  });
});
