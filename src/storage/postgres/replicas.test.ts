import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, postgresTestUrl, type TestDatabase } from '../../../test/helpers/postgres.js';
import { AuditLog } from '../../audit/log.js';
import { StorageUnavailableError } from '../ports/errors.js';
import { PostgresStorage } from './index.js';
import { COST_HOLD_LOCK_CLASS } from './locks.js';
import { PG_MIGRATIONS } from './migrations/index.js';

const LATEST = PG_MIGRATIONS.at(-1)!.version;

/** What only a shared database has to get right: several storages (replicas) on it at once, and the database going away. */
describe.skipIf(postgresTestUrl === null)('PostgreSQL shared by replicas', () => {
  let database: TestDatabase;
  const opened: PostgresStorage[] = [];
  const replica = () => {
    const storage = new PostgresStorage(database.url, { poolSize: 3 });
    opened.push(storage);
    return storage;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    await (await PostgresStorage.open(database.url)).close();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((storage) => storage.close()));
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('keeps one audit chain when three replicas append at once', async () => {
    const replicas = [replica(), replica(), replica()];
    await replicas[0]!.database.query('DELETE FROM audit_events');
    const logs = replicas.map((storage) => new AuditLog(storage.audit));
    await Promise.all(logs.flatMap((log, r) =>
      Array.from({ length: 100 }, (_, i) => log.emit({ event_type: `replica.${r}`, category: 'test', result: 'allow', detail: { i } }))));
    expect(await replicas[1]!.audit.verify()).toEqual({ ok: true, count: 300 });
    // Each replica's own events are in the chain in the order it emitted them.
    const { rows } = await replicas[0]!.database.query<{ event_type: string; i: number }>(
      `SELECT event_type, (detail::json ->> 'i')::int AS i FROM audit_events ORDER BY seq`);
    for (const r of [0, 1, 2]) {
      expect(rows.filter((row) => row.event_type === `replica.${r}`).map((row) => row.i)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    }
  });

  it('lists the audit log in chain order, the order audit verify checks, though the replicas\' clocks disagree', async () => {
    const [ahead, behind] = [replica(), replica()];
    await ahead.database.query('DELETE FROM audit_events');
    // One replica's clock runs 90 s ahead of the other's: its events carry later timestamps than
    // events appended after them.
    const base = Date.parse('2026-05-01T12:00:00.000Z');
    let tick = 0;
    const logs = [new AuditLog(ahead.audit, () => base + 90_000 + tick), new AuditLog(behind.audit, () => base + tick)];
    const appended: string[] = [];
    for (let i = 0; i < 12; i++) {
      tick += 1_000;
      const log = logs[i % 2]!;
      await log.emit({ event_type: `skewed.${i % 2 === 0 ? 'ahead' : 'behind'}`, category: 'test', result: 'allow', detail: { i } });
      appended.push(String(i));
    }
    expect(await behind.audit.verify()).toEqual({ ok: true, count: 12 });
    const order = (page: { events: { detail: Record<string, unknown> }[] }) => page.events.map((event) => String(event.detail.i));
    // Newest appended first, on either replica, whole or paged; filters keep the order.
    const newestFirst = [...appended].reverse();
    for (const storage of [ahead, behind]) {
      expect(order(await storage.audit.query({ limit: 50, offset: 0 }))).toEqual(newestFirst);
      const pages = [];
      for (let offset = 0; offset < 12; offset += 5) pages.push(...order(await storage.audit.query({ limit: 5, offset })));
      expect(pages).toEqual(newestFirst);
      expect(order(await storage.audit.query({ limit: 50, offset: 0, event_type: 'skewed.behind' }))).toEqual(newestFirst.filter((i) => Number(i) % 2 === 1));
    }
    // An unfiltered page links up: each event's prev_hash is the next (older) one's hash.
    const { events } = await ahead.audit.query({ limit: 50, offset: 0 });
    for (let n = 0; n + 1 < events.length; n++) expect(events[n]!.prev_hash).toBe(events[n + 1]!.hash);
  });

  it('lets concurrent calls on one session in three replicas hold only what fits under the cap', async () => {
    const replicas = [replica(), replica(), replica()];
    await replicas[0]!.database.query("DELETE FROM cost_holds; DELETE FROM cost_sessions WHERE session_id = 'ses_shared'");
    await replicas[0]!.costs.record({
      session_id: 'ses_shared', run_id: null, provider: 'openai', model: 'm', prompt_tokens: 1, completion_tokens: 1, cost_usd: 0.5,
      timestamp: '2026-01-01T00:00:00.000Z',
    });
    // Each call holds 0.2 of a cap of 1 with 0.5 spent: two fit, a third would pass the cap.
    const answers = await Promise.all(replicas.flatMap((storage) => Array.from({ length: 4 }, () => storage.costs.reserve({
      session_id: 'ses_shared', amount_usd: 0.2, cap_usd: 1, now: '2026-01-01T00:00:00.000Z', expires_at: '2026-01-01T00:15:00.000Z',
    }))));
    expect(answers.filter((answer) => answer.granted)).toHaveLength(2);
  });

  it('frees the budget holds of a stopped replica\'s calls when another replica reaps its session claims, in the same step', async () => {
    const a = new PostgresStorage(database.url, { poolSize: 2, replicaId: 'replica-a' });
    const b = new PostgresStorage(database.url, { poolSize: 2, replicaId: 'replica-b' });
    opened.push(a, b);
    await a.database.query("DELETE FROM cost_holds; DELETE FROM session_claims; DELETE FROM cost_sessions WHERE session_id LIKE 'ses_reap%'");
    const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
    const ask = (storage: PostgresStorage, session_id: string, amount_usd: number, now = at(0)) =>
      storage.costs.reserve({ session_id, amount_usd, cap_usd: 1, now, expires_at: at(900) });
    // A's chat on ses_reap_dead holds $0.9 of its $1 while its call is in flight; A's claim on
    // ses_reap_live is renewed past the reap, and the call on it holds $0.9 too.
    expect(await a.sessionClaims.acquire({ session_id: 'ses_reap_dead', holder_id: 'chat_dead', kind: 'chat', expires_at: at(10) }, at(0))).toBe(true);
    expect(await a.sessionClaims.acquire({ session_id: 'ses_reap_live', holder_id: 'chat_live', kind: 'chat', expires_at: at(60) }, at(0))).toBe(true);
    expect(await ask(a, 'ses_reap_dead', 0.9)).toMatchObject({ granted: true });
    expect(await ask(a, 'ses_reap_live', 0.9)).toMatchObject({ granted: true });
    expect(await ask(b, 'ses_reap_dead', 0.5, at(11))).toEqual({ granted: false, spent_usd: 0, held_usd: 0.9 });

    // A stopped renewing: B reaps the expired claim, and with it the hold its call left.
    const reaped = await b.sessionClaims.reapExpired(at(11), 'stopped', 10);
    expect(reaped.map((claim) => claim.session_id)).toEqual(['ses_reap_dead']);
    const { rows } = await b.database.query<{ session_id: string }>('SELECT session_id FROM cost_holds ORDER BY session_id');
    expect(rows.map((row) => row.session_id)).toEqual(['ses_reap_live']);
    expect(await ask(b, 'ses_reap_dead', 0.5, at(11))).toMatchObject({ granted: true });
    // The live claim's hold still counts.
    expect(await ask(b, 'ses_reap_live', 0.5, at(11))).toEqual({ granted: false, spent_usd: 0, held_usd: 0.9 });
  });

  it('frees the holds a stopped replica\'s calls left when its expired claim is taken over before any reaper ran, by a chat or a run', async () => {
    const a = new PostgresStorage(database.url, { poolSize: 2, replicaId: 'replica-a' });
    const b = new PostgresStorage(database.url, { poolSize: 2, replicaId: 'replica-b' });
    const c = new PostgresStorage(database.url, { poolSize: 2, replicaId: 'replica-c' });
    opened.push(a, b, c);
    await a.database.query("DELETE FROM cost_holds; DELETE FROM session_claims; DELETE FROM runs WHERE session_id LIKE 'ses_take%'");
    const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
    const ask = (storage: PostgresStorage, session_id: string, amount_usd: number, now: string) =>
      storage.costs.reserve({ session_id, amount_usd, cap_usd: 1, now, expires_at: at(900) });
    const holds = async () => (await a.database.query<{ id: string; session_id: string }>('SELECT id, session_id FROM cost_holds ORDER BY session_id, id')).rows;
    const run = (id: string, session: string) => ({
      run_id: id, session_id: session, message: 'm', status: 'pending' as const, provider: null, resolved_provider: 'openai',
      created_at: at(11), started_at: null, finished_at: null, response: null, error: null, tools_used: [],
      cost: { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 }, source: 'api' as const, job_id: null, model: null, first_token_at: null,
    });
    // A holds three sessions until second 10, each with a call in flight holding $0.9 of $1; and a
    // fourth until second 60 (alive).
    const held: Record<string, string> = {};
    for (const session of ['ses_take_chat', 'ses_take_run', 'ses_take_lost']) {
      expect(await a.sessionClaims.acquire({ session_id: session, holder_id: `chat_${session}`, kind: 'chat', expires_at: at(10) }, at(0))).toBe(true);
      const answer = await ask(a, session, 0.9, at(0));
      held[session] = answer.granted ? answer.hold_id : 'refused';
    }
    expect(await a.sessionClaims.acquire({ session_id: 'ses_take_live', holder_id: 'chat_live', kind: 'chat', expires_at: at(60) }, at(0))).toBe(true);
    const live = await ask(a, 'ses_take_live', 0.9, at(0));

    // Before the lease lapses nothing is taken, and nothing freed.
    expect(await b.sessionClaims.acquire({ session_id: 'ses_take_chat', holder_id: 'chat_b', kind: 'chat', expires_at: at(40) }, at(9))).toBe(false);
    expect(await c.runs.createClaimed!(run('run_c_early', 'ses_take_run'), { expires_at: at(40), now: at(9) })).toBe(false);
    expect((await holds()).map((hold) => hold.session_id)).toEqual(['ses_take_chat', 'ses_take_live', 'ses_take_lost', 'ses_take_run']);

    // A stopped; no reaper runs. B's chat takes one expired claim over, C's run another: each
    // statement frees that session's dead hold, and the new holder's call fits.
    expect(await b.sessionClaims.acquire({ session_id: 'ses_take_chat', holder_id: 'chat_b', kind: 'chat', expires_at: at(40) }, at(11))).toBe(true);
    expect(await c.runs.createClaimed!(run('run_c', 'ses_take_run'), { expires_at: at(40), now: at(11) })).toBe(true);
    expect((await holds()).map((hold) => hold.session_id)).toEqual(['ses_take_live', 'ses_take_lost']);
    const onB = await ask(b, 'ses_take_chat', 0.9, at(12));
    const onC = await ask(c, 'ses_take_run', 0.9, at(12));
    expect(onB).toMatchObject({ granted: true });
    expect(onC).toMatchObject({ granted: true });

    // Taking a claim another holder still has frees nothing: A's live call and B's and C's own
    // holds stay, and a second call beside each still does not fit.
    expect(await c.sessionClaims.acquire({ session_id: 'ses_take_chat', holder_id: 'chat_c', kind: 'chat', expires_at: at(50) }, at(13))).toBe(false);
    expect(await b.runs.createClaimed!(run('run_b_late', 'ses_take_run'), { expires_at: at(50), now: at(13) })).toBe(false);
    expect(await b.sessionClaims.acquire({ session_id: 'ses_take_live', holder_id: 'chat_b2', kind: 'chat', expires_at: at(50) }, at(13))).toBe(false);
    const id = (answer: Awaited<ReturnType<typeof ask>>) => (answer.granted ? answer.hold_id : 'refused');
    expect(await holds()).toEqual([
      { id: id(onB), session_id: 'ses_take_chat' }, { id: id(live), session_id: 'ses_take_live' },
      { id: held.ses_take_lost, session_id: 'ses_take_lost' }, { id: id(onC), session_id: 'ses_take_run' },
    ]);
    expect(await ask(b, 'ses_take_chat', 0.2, at(13))).toEqual({ granted: false, spent_usd: 0, held_usd: 0.9 });
    expect(await ask(c, 'ses_take_run', 0.2, at(13))).toEqual({ granted: false, spent_usd: 0, held_usd: 0.9 });
    expect(await ask(b, 'ses_take_live', 0.2, at(13))).toEqual({ granted: false, spent_usd: 0, held_usd: 0.9 });
    expect(await c.runs.get('run_b_late')).toBeNull();

    // A restarts under its id: dropping its claims frees the session, and the next claim on it
    // frees the hold its dead call left.
    await a.sessionClaims.releaseOwn();
    expect(await ask(b, 'ses_take_lost', 0.5, at(13))).toEqual({ granted: false, spent_usd: 0, held_usd: 0.9 });
    expect(await b.sessionClaims.acquire({ session_id: 'ses_take_lost', holder_id: 'chat_b3', kind: 'chat', expires_at: at(50) }, at(13))).toBe(true);
    expect(await ask(b, 'ses_take_lost', 0.5, at(13))).toMatchObject({ granted: true });
  });

  it('never frees the hold of the replica that won a race for an expired claim', async () => {
    const replicas = [0, 1, 2].map((r) => new PostgresStorage(database.url, { poolSize: 2, replicaId: `replica-race-${r}` }));
    opened.push(...replicas);
    const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
    for (let round = 0; round < 20; round++) {
      const session = `ses_race_${round}`;
      await replicas[0]!.database.query(`DELETE FROM cost_holds WHERE session_id = '${session}'; DELETE FROM session_claims WHERE session_id = '${session}'`);
      expect(await replicas[0]!.sessionClaims.acquire({ session_id: session, holder_id: 'chat_dead', kind: 'chat', expires_at: at(10) }, at(0))).toBe(true);
      expect(await replicas[0]!.costs.reserve({ session_id: session, amount_usd: 0.9, cap_usd: 1, now: at(0), expires_at: at(900) })).toMatchObject({ granted: true });
      // Three replicas take the expired claim over at once; the one that wins holds its call's bound at once.
      const answers = await Promise.all(replicas.map(async (storage, r) => {
        const taken = await storage.sessionClaims.acquire({ session_id: session, holder_id: `chat_${r}`, kind: 'chat', expires_at: at(40) }, at(11));
        return taken ? storage.costs.reserve({ session_id: session, amount_usd: 0.9, cap_usd: 1, now: at(11), expires_at: at(900) }) : null;
      }));
      const won = answers.filter((answer) => answer !== null);
      expect(won).toHaveLength(1);
      expect(won[0]).toMatchObject({ granted: true });
      const { rows } = await replicas[1]!.database.query<{ id: string }>('SELECT id FROM cost_holds WHERE session_id = $1', [session]);
      expect(rows.map((row) => row.id)).toEqual([won[0]!.granted ? won[0]!.hold_id : 'refused']);
    }
  });

  it('ends the unfinished runs that hold no claim on their session, once, saying the database was unavailable, and leaves claimed ones alone', async () => {
    const a = new PostgresStorage(database.url, { poolSize: 2, replicaId: 'replica-a' });
    const b = new PostgresStorage(database.url, { poolSize: 2, replicaId: 'replica-b' });
    opened.push(a, b);
    await a.database.query("DELETE FROM session_claims; DELETE FROM runs WHERE id LIKE 'run_unclaimed%'");
    const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
    const run = (id: string, session: string) => ({
      run_id: id, session_id: session, message: 'm', status: 'pending' as const, provider: null, resolved_provider: 'offline',
      created_at: at(0), started_at: null, finished_at: null, response: null, error: null, tools_used: [],
      cost: { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 }, source: 'api' as const, job_id: null, model: null, first_token_at: null,
    });
    // Both created with their claims; one's claim is then lost (its release after a failed end, say),
    // the other keeps it; a third run's session is claimed by other work.
    expect(await a.runs.createClaimed(run('run_unclaimed_lost', 'ses_u1'), { expires_at: at(60), now: at(0) })).toBe(true);
    expect(await a.runs.createClaimed(run('run_unclaimed_kept', 'ses_u2'), { expires_at: at(60), now: at(0) })).toBe(true);
    await a.runs.start('run_unclaimed_lost', at(1), { id: 1, name: 'run.start', data: '{}' });
    await a.sessionClaims.release('ses_u1', 'run_unclaimed_lost');
    await a.runs.create(run('run_unclaimed_other', 'ses_u3'));
    expect(await a.sessionClaims.acquire({ session_id: 'ses_u3', holder_id: 'chat_x', kind: 'chat', expires_at: at(60) }, at(0))).toBe(true);

    const ended = await Promise.all([a.sessionClaims.reapUnclaimed(at(5), 'db gone', 10), b.sessionClaims.reapUnclaimed(at(5), 'db gone', 10)]);
    // The database is shared with the tests before this one, whose unfinished runs may be reaped too.
    expect(ended.flat().filter((id) => id.startsWith('run_unclaimed')).sort()).toEqual(['run_unclaimed_lost', 'run_unclaimed_other']);
    expect(await b.runs.get('run_unclaimed_lost')).toMatchObject({ status: 'error', error: 'db gone' });
    expect((await b.runs.events('run_unclaimed_lost', 0)).map((event) => event.name)).toEqual(['run.start', 'run.error']);
    expect((await b.runs.events('run_unclaimed_other', 0)).map((event) => event.name)).toEqual(['run.start', 'run.error']);
    expect(await b.runs.get('run_unclaimed_kept')).toMatchObject({ status: 'pending', finished_at: null });
    expect(await b.sessionClaims.reapUnclaimed(at(6), 'db gone', 10)).toEqual([]);
  });

  it('decides a session\'s holds one at a time: a hold waits while another replica is deciding one', async () => {
    const [deciding, asking] = [replica(), replica()];
    await deciding.database.query("DELETE FROM cost_holds WHERE session_id = 'ses_locked'");
    let granted = false;
    let waiting: Promise<unknown> = Promise.resolve();
    await deciding.database.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [COST_HOLD_LOCK_CLASS, 'ses_locked']);
      waiting = asking.costs.reserve({
        session_id: 'ses_locked', amount_usd: 0.1, cap_usd: 1, now: '2026-01-01T00:00:00.000Z', expires_at: '2026-01-01T00:15:00.000Z',
      }).then((answer) => (granted = answer.granted));
      // The other replica's hold is blocked on the session's lock, not decided beside this one. (Asked on
      // another connection: a transaction keeps its first view of pg_stat_activity.)
      for (let seen = 0; seen === 0;) {
        const { rows } = await deciding.database.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND wait_event = 'advisory' AND datname = current_database()");
        seen = rows[0]!.n;
      }
      expect(granted).toBe(false);
    });
    // Committed: the lock is free and the waiting hold is decided.
    await waiting;
    expect(granted).toBe(true);
  });

  it('finds an event changed in the database', async () => {
    const storage = replica();
    await storage.database.query('DELETE FROM audit_events');
    const log = new AuditLog(storage.audit);
    for (let i = 0; i < 5; i++) await log.emit({ event_type: 'test.event', category: 'test', result: 'allow', detail: { i } });
    const { rows } = await storage.database.query<{ seq: number; id: string }>(
      `UPDATE audit_events SET detail = '{"i":99}' WHERE seq = (SELECT seq FROM audit_events ORDER BY seq OFFSET 2 LIMIT 1) RETURNING seq, id`);
    expect(await storage.audit.verify()).toEqual({
      ok: false, count: 3, brokenAt: { seq: rows[0]!.seq, id: rows[0]!.id, reason: 'hash does not match the content (event modified)' },
    });
  });

  it('claims each job occurrence once across three replicas', async () => {
    const replicas = [replica(), replica(), replica()];
    await replicas[0]!.database.query('DELETE FROM jobs');
    const at = (s: number) => new Date(Date.UTC(2026, 0, 1) + s * 1000).toISOString();
    await replicas[0]!.jobs.create({
      id: 'job_a', name: 'a', description: null, schedule: 'every 1 seconds', task: 't', provider: null, active_hours: null,
      timezone: 'UTC', created_at: at(0), next_run_at: at(1),
    }, 10);
    let claimed = 0;
    for (let n = 1; n <= 50; n++) {
      const won = await Promise.all(replicas.map((storage, r) => storage.jobs.claim('job_a', {
        expected: at(n), next_run_at: at(n + 1), missed: 0, last_missed_at: null, fire: { at: at(n), status: 'starting', run_id: `run_${r}_${n}` },
      })));
      claimed += won.filter((job) => job !== null).length;
    }
    expect(claimed).toBe(50);
    expect((await replicas[2]!.jobs.get('job_a'))?.next_run_at).toBe(at(51));
  });

  it('recovers at start only the runs this replica left unfinished, never those another replica is running', async () => {
    const a = new PostgresStorage(database.url, { replicaId: 'rep_a' });
    const b = new PostgresStorage(database.url, { replicaId: 'rep_b' });
    opened.push(a, b);
    await a.database.query('DELETE FROM runs');
    const run = (id: string) => ({
      run_id: id, session_id: 'ses_1', message: 'm', status: 'pending' as const, provider: null, resolved_provider: 'offline',
      created_at: '2026-01-01T00:00:00.000Z', started_at: null, finished_at: null, response: null, error: null, tools_used: [],
      cost: { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 }, source: 'api' as const, job_id: null, model: null, first_token_at: null,
    });
    await a.runs.create(run('run_on_a'));
    await a.runs.start('run_on_a', '2026-01-01T00:00:01.000Z', { id: 1, name: 'run.start', data: '{}' });
    await b.runs.create(run('run_on_b'));

    // Replica B restarts: its own pending run was interrupted, A's running one is left alone.
    expect(await b.runs.recoverInterrupted('2026-01-01T00:01:00.000Z', 'interrupted by restart')).toEqual(['run_on_b']);
    expect(await a.runs.get('run_on_a')).toMatchObject({ status: 'running', error: null });
    expect((await a.runs.events('run_on_a', 0)).map((e) => e.name)).toEqual(['run.start']);
    expect(await a.runs.recoverInterrupted('2026-01-01T00:02:00.000Z', 'interrupted by restart')).toEqual(['run_on_a']);
  });

  it('never evicts an API session another replica has a run in flight on', async () => {
    const a = new PostgresStorage(database.url, { replicaId: 'rep_a', poolSize: 2 });
    const b = new PostgresStorage(database.url, { replicaId: 'rep_b', poolSize: 2 });
    opened.push(a, b);
    await a.database.query('DELETE FROM api_sessions; DELETE FROM session_claims');
    const ended: string[] = [];
    const onB = b.sessionStore({ max: 2, onEnd: (id) => ended.push(id) });
    const busy = await onB.create({ provider: 'offline' });
    const idle = await onB.create({ provider: 'offline' });
    const now = new Date().toISOString();
    const expiresAt = new Date(Date.now() + 60_000).toISOString();
    expect(await a.sessionClaims.acquire({ session_id: busy.id, holder_id: 'run_on_a', kind: 'run', expires_at: expiresAt }, now)).toBe(true);

    // The least recently used session is busy on A: B evicts the next one.
    await onB.create({ provider: 'offline' });
    expect(ended).toEqual([idle.id]);
    expect(await onB.get(busy.id)).not.toBeNull();
  });

  it('answers with StorageUnavailableError, not a driver error, and a health without the password when the server cannot be reached', async () => {
    const storage = new PostgresStorage('postgres://agentd:hunter2@127.0.0.1:1/agentd', { connectTimeoutMs: 1_000 });
    opened.push(storage);
    await expect(storage.turns.count()).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(new AuditLog(storage.audit).emit({ event_type: 'x', category: 'test', result: 'allow' })).rejects.toBeInstanceOf(StorageUnavailableError);
    const health = await storage.health();
    expect(health).toMatchObject({ backend: 'postgres', reachable: false, location: 'postgres://agentd:***@127.0.0.1:1/agentd', migrations: null });
    expect(JSON.stringify(health)).not.toContain('hunter2');
  });

  it('reports the server version, size and schema when reachable', async () => {
    const health = await replica().health();
    expect(health).toMatchObject({ backend: 'postgres', reachable: true, problem: null, migrations: { applied: LATEST, latest: LATEST } });
    expect(health.backend === 'postgres' && health.version).toMatch(/^\d+\.\d+/);
    expect(health.sizeBytes).toBeGreaterThan(1_000_000);
  });

  it('finds words whatever their case and accents, as SQLite does', async () => {
    const storage = replica();
    await storage.turns.addMany([{ session_id: 's', role: 'user', content: 'Die ÜBERWEISUNG ist fertig, café crème', provider: null }]);
    expect((await storage.turns.search('uberweisung CAFE', { limit: 5 })).map((r) => r.content)).toEqual(['Die ÜBERWEISUNG ist fertig, café crème']);
    expect(await storage.turns.search('überweisungen', { limit: 5 })).toEqual([]);
  });
});
