import { describe, expect, it } from 'vitest';
import { postgresTestUrl } from '../../../test/helpers/postgres.js';
import { usePostgresStorage } from '../../../test/helpers/postgres-storage.js';
import type { RunOutcome } from '../ports/runs.js';
import type { RunRecord } from '../ports/runs.js';
import { interruptRun } from './run-store.js';
import { RunClosedError } from '../ports/errors.js';

const record = (run_id: string, session_id: string): RunRecord => ({
  run_id, session_id, message: 'hi', status: 'pending', provider: null, resolved_provider: 'offline',
  created_at: '2026-01-01T00:00:00.000Z', started_at: null, finished_at: null, response: null, error: null,
  tools_used: [], cost: { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 }, source: 'api', job_id: null, model: null, first_token_at: null,
});
const outcome: RunOutcome = {
  status: 'complete', finished_at: '2026-01-01T00:00:02.000Z', response: 'done', error: null, tools_used: [], model: null, first_token_at: null,
  cost: { prompt_tokens: 1, completion_tokens: 2, cost_usd: 0 },
};
const NOW = '2026-01-01T00:00:00.000Z';
const LATER = '2026-01-01T00:01:00.000Z';

/**
 * A run's writes in few statements: its session claim taken in its first and freed in its last
 * (`RunStore.claimsWithRuns`), events that queue up behind a write in one INSERT.
 */
describe.skipIf(postgresTestUrl === null)('PostgreSQL run statements', () => {
  const pg = usePostgresStorage({ poolSize: 2, replicaId: 'replica-a' });

  async function runningWithClaim(runId: string, sessionId: string): Promise<void> {
    expect(await pg.storage.sessionClaims.acquire({ session_id: sessionId, holder_id: runId, kind: 'run', expires_at: LATER }, NOW)).toBe(true);
    await pg.storage.runs.create(record(runId, sessionId));
    await pg.storage.runs.start(runId, '2026-01-01T00:00:01.000Z', { id: 1, name: 'run.start', data: '{}' });
  }

  it('creates a run together with its claim, and neither while another holder\'s live claim has the session', async () => {
    expect(await pg.storage.runs.createClaimed(record('run_x', 'ses_x'), { expires_at: LATER, now: NOW })).toBe(true);
    expect(await pg.storage.sessionClaims.holder('ses_x', NOW)).toEqual({
      session_id: 'ses_x', holder_id: 'run_x', kind: 'run', owner: 'replica-a', expires_at: LATER,
    });
    expect(await pg.storage.runs.get('run_x')).toEqual(record('run_x', 'ses_x'));
    // Busy: refused, and the second run is not created.
    expect(await pg.storage.runs.createClaimed(record('run_y', 'ses_x'), { expires_at: LATER, now: NOW })).toBe(false);
    expect(await pg.storage.runs.get('run_y')).toBeNull();
    expect(await pg.storage.sessionClaims.holder('ses_x', NOW)).toMatchObject({ holder_id: 'run_x' });
    // Once the claim has expired (its replica stopped renewing it), it is taken over.
    expect(await pg.storage.runs.createClaimed(record('run_z', 'ses_x'), { expires_at: '2026-01-01T00:03:00.000Z', now: LATER })).toBe(true);
    expect(await pg.storage.sessionClaims.holder('ses_x', LATER)).toMatchObject({ holder_id: 'run_z', expires_at: '2026-01-01T00:03:00.000Z' });
    expect(await pg.storage.runs.get('run_z')).toMatchObject({ status: 'pending', session_id: 'ses_x' });
  });

  it('stores a run\'s start and events with its end in one commit, in call order, acknowledging them with that commit', async () => {
    await pg.storage.runs.create(record('run_e', 'ses_e'));
    const commits: string[] = [];
    const writes = [
      pg.storage.runs.start('run_e', '2026-01-01T00:00:01.000Z', { id: 1, name: 'run.start', data: '{}' }),
      pg.storage.runs.appendEvent('run_e', { id: 2, name: 'tool.request', data: '{"n":2}' }),
      pg.storage.runs.appendEvent('run_e', { id: 3, name: 'tool.result', data: '{"n":3}' }),
    ].map((write, i) => write.then(() => commits.push(`event ${i + 1}`)));
    // Held: nothing is stored (nor acknowledged) before the end comes.
    expect(await pg.storage.runs.events('run_e', 0)).toEqual([]);
    expect(commits).toEqual([]);
    await pg.storage.runs.finish('run_e', outcome, { id: 4, name: 'run.complete', data: '{"n":4}' }).then(() => commits.push('end'));
    await Promise.all(writes);
    // In call order: a viewer handed each event as it is acknowledged gets the end last.
    expect(commits).toEqual(['event 1', 'event 2', 'event 3', 'end']);
    const { rows } = await pg.storage.database.query<{ id: number; tx: string }>(
      `SELECT id, xmin::text AS tx FROM run_events WHERE run_id = 'run_e' ORDER BY id`);
    expect(rows.map((r) => r.id)).toEqual([1, 2, 3, 4]);
    expect(new Set(rows.map((r) => r.tx)).size).toBe(1);
    expect((await pg.storage.runs.get('run_e'))!.started_at).toBe('2026-01-01T00:00:01.000Z');
    expect((await pg.storage.runs.events('run_e', 0)).map((e) => e.data)).toEqual(['{}', '{"n":2}', '{"n":3}', '{"n":4}']);
  });

  it('writes the start and events of a run that has not ended within the hold on their own, and later ones after them', async () => {
    await pg.storage.runs.create(record('run_h', 'ses_h'));
    await Promise.all([
      pg.storage.runs.start('run_h', '2026-01-01T00:00:01.000Z', { id: 1, name: 'run.start', data: '{}' }),
      pg.storage.runs.appendEvent('run_h', { id: 2, name: 'tool.request', data: '{}' }),
    ]);
    // Acknowledged: stored, and the run shows as running to every replica, before its end.
    expect((await pg.storage.runs.events('run_h', 0)).map((e) => e.id)).toEqual([1, 2]);
    expect((await pg.storage.runs.get('run_h'))!.status).toBe('running');
    const later = pg.storage.runs.appendEvent('run_h', { id: 3, name: 'tool.result', data: '{}' });
    await pg.storage.runs.finish('run_h', outcome, { id: 4, name: 'run.complete', data: '{}' });
    await later;
    const { rows } = await pg.storage.database.query<{ id: number; tx: string }>(
      `SELECT id, xmin::text AS tx FROM run_events WHERE run_id = 'run_h' ORDER BY id`);
    expect(rows.map((r) => r.id)).toEqual([1, 2, 3, 4]);
    const [start, request, result, end] = rows.map((r) => r.tx);
    expect(request).toBe(start);
    expect(result).toBe(end);
    expect(end).not.toBe(start);
  });

  it('refuses the held start and events with the end when another replica ended the run meanwhile', async () => {
    await pg.storage.runs.create(record('run_r', 'ses_r'));
    const start = pg.storage.runs.start('run_r', '2026-01-01T00:00:01.000Z', { id: 1, name: 'run.start', data: '{}' });
    await pg.storage.database.transaction((tx) => interruptRun(tx, 'run_r', LATER, 'replica stopped'));
    await expect(pg.storage.runs.finish('run_r', outcome, { id: 2, name: 'run.complete', data: '{}' })).rejects.toBeInstanceOf(RunClosedError);
    await expect(start).rejects.toBeInstanceOf(RunClosedError);
    expect((await pg.storage.runs.events('run_r', 0)).map((e) => e.name)).toEqual(['run.start', 'run.error']);
  });

  it('marks the API session used in the commit that creates its run, and no session for another source', async () => {
    const sessions = pg.storage.sessionStore({});
    const session = await sessions.create({ provider: 'offline' });
    const other = await sessions.create({ provider: 'offline' });
    const run = { ...record('run_t', session.id), created_at: '2030-01-01T00:00:00.000Z' };
    expect(await pg.storage.runs.createClaimed(run, { expires_at: '2030-01-01T00:01:00.000Z', now: '2030-01-01T00:00:00.000Z' })).toBe(true);
    expect((await sessions.get(session.id))!.last_used_at).toBe('2030-01-01T00:00:00.000Z');
    expect((await sessions.list(1))[0]!.id).toBe(session.id);
    await pg.storage.runs.create({ ...record('run_j', other.id), source: 'job', created_at: '2030-01-01T00:00:00.000Z' });
    expect((await sessions.get(other.id))!.last_used_at).toBe(other.last_used_at);
  });

  it('frees the run\'s claim with its end when asked, and the session can be claimed at once', async () => {
    expect(pg.storage.runs.claimsWithRuns).toBe(true);
    await runningWithClaim('run_a', 'ses_a');
    await pg.storage.runs.finish('run_a', outcome, { id: 2, name: 'run.complete', data: '{"done":true}' }, { releaseClaim: true });
    expect(await pg.storage.sessionClaims.holder('ses_a', NOW)).toBeNull();
    expect(await pg.storage.runs.get('run_a')).toMatchObject({ status: 'complete', response: 'done' });
    expect((await pg.storage.runs.events('run_a', 0)).map((e) => e.name)).toEqual(['run.start', 'run.complete']);
    expect(await pg.storage.sessionClaims.acquire({ session_id: 'ses_a', holder_id: 'run_next', kind: 'run', expires_at: LATER }, NOW)).toBe(true);
  });

  it('keeps the claim when not asked (the loop is still unwinding), and never frees another holder\'s claim', async () => {
    await runningWithClaim('run_b', 'ses_b');
    await pg.storage.runs.finish('run_b', outcome, { id: 2, name: 'run.cancelled', data: '{}' });
    expect(await pg.storage.sessionClaims.holder('ses_b', NOW)).toMatchObject({ holder_id: 'run_b' });
    await pg.storage.sessionClaims.release('ses_b', 'run_b');
    // A run ended elsewhere already (its claim was reaped and the session claimed again): only its own claim may go.
    await runningWithClaim('run_c', 'ses_c');
    await pg.storage.runs.finish('run_c', outcome, { id: 2, name: 'run.complete', data: '{}' });
    await pg.storage.sessionClaims.release('ses_c', 'run_c');
    expect(await pg.storage.sessionClaims.acquire({ session_id: 'ses_c', holder_id: 'run_d', kind: 'run', expires_at: LATER }, NOW)).toBe(true);
    await expect(pg.storage.runs.finish('run_c', outcome, { id: 3, name: 'run.complete', data: '{}' }, { releaseClaim: true }))
      .rejects.toBeInstanceOf(RunClosedError);
    expect(await pg.storage.sessionClaims.holder('ses_c', NOW)).toMatchObject({ holder_id: 'run_d' });
    // The finished run was not finished twice.
    expect((await pg.storage.runs.events('run_c', 0)).map((e) => e.id)).toEqual([1, 2]);
  });
});
