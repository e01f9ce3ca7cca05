import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChannelDispatcher, type ChannelRunner } from '../src/channels/dispatcher.js';
import type { RunRecord } from '../src/storage/ports/runs.js';
import { DurableInbox } from '../src/channels/inbox/durable-inbox.js';
import { createMemoryLogger } from '../src/log.js';
import { PostgresStorage } from '../src/storage/postgres/index.js';
import { eventually } from './helpers/agent.js';
import { createTestDatabase, databaseRelay, postgresTestUrl, type TestDatabase } from './helpers/postgres.js';

/**
 * A webhook message acknowledged with 202 whose run cannot be created because the connection to
 * PostgreSQL is cut at that moment: it stays waiting with its text, is claimed again once the
 * database is back, and runs then, once; its text is erased by the statement that creates its run.
 */
describe.skipIf(postgresTestUrl === null)('webhook messages while the database connection is cut at their start', () => {
  let database: TestDatabase;
  let relay: Awaited<ReturnType<typeof databaseRelay>>;
  let storage: PostgresStorage;
  let direct: PostgresStorage;

  beforeAll(async () => {
    database = await createTestDatabase();
    await (await PostgresStorage.open(database.url)).close();
    relay = await databaseRelay();
    storage = new PostgresStorage(relay.url(database.name), { replicaId: 'rep_cut', poolSize: 3, connectTimeoutMs: 500 });
    direct = new PostgresStorage(database.url, { replicaId: 'rep_check', poolSize: 2 });
  });
  afterAll(async () => {
    await storage?.close();
    await direct?.close();
    await relay?.stop();
    await database?.drop();
  });

  it('leaves the message waiting, text kept, while its start fails, and runs it once when the database is back', async () => {
    const log = createMemoryLogger();
    const inbox = new DurableInbox({
      channel: 'webhook', store: storage.inbox, owner: 'rep_cut', log, leaseMs: 3_000,
      runExists: async (runId) => (await storage.runs.get(runId)) !== null,
    });
    const tried: string[] = [];
    const created: RunRecord[] = [];
    let cut = false;
    const runner: ChannelRunner = {
      async startChannelRun({ sessionId, message, runId }) {
        tried.push(runId!);
        if (tried.length === 1) {
          // The database goes away just as the run is to be created.
          await relay.stop();
          cut = true;
        }
        const record = {
          run_id: runId!, session_id: sessionId, message, status: 'pending', provider: null, resolved_provider: 'offline',
          created_at: new Date().toISOString(), started_at: null, finished_at: null, response: null, error: null, tools_used: [],
          cost: { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 }, source: 'webhook', job_id: null, model: null, first_token_at: null,
        } as RunRecord;
        await storage.runs.create(record);
        created.push(record);
        return record;
      },
      whenRunFinished: async (runId) => ({ run_id: runId, response: 'done' }) as RunRecord,
    };
    const dispatcher = new ChannelDispatcher({ inbox, runner, sessionPrefix: 'webhook', log });
    expect(await inbox.accept({ content: 'what is 6*7?', sender: 'ci', metadata: { webhook_headers: {} }, received_at: new Date().toISOString() }, 'delivery-1'))
      .toBe('queued');
    await inbox.recover();
    inbox.startClaiming();
    dispatcher.start();

    await eventually(() => cut && log.lines.some((line) => line.includes('not started yet')), 10_000);
    // Still waiting, with its text, and no run: nothing was settled.
    const waiting = await direct.inbox.waiting('webhook', 10);
    expect(waiting.map((m) => ({ content: m.content, run_id: m.run_id }))).toEqual([{ content: 'what is 6*7?', run_id: tried[0] }]);
    expect(await direct.runs.get(tried[0]!)).toBeNull();

    await relay.start();
    await eventually(async () => (await direct.runs.get(tried[0]!)) !== null, 15_000);
    await eventually(async () => (await direct.inbox.waiting('webhook', 10)).length === 0, 5_000);
    // The same run id, created once; the row's text erased with it.
    expect(created.map((run) => run.run_id)).toEqual([tried[0]]);
    expect(new Set(tried)).toEqual(new Set([tried[0]]));
    const { rows } = await direct.database.query<{ content: string; waiting: boolean }>('SELECT content, waiting FROM channel_inbox');
    expect(rows).toEqual([{ content: '', waiting: false }]);
    expect(tried.length).toBeGreaterThan(1);
    await dispatcher.stop();
    await inbox.stopClaiming();
  }, 60_000);

  it('erases a channel message\'s text in the statement that creates its run, and only then', async () => {
    expect(await direct.inbox.accept({
      channel: 'other', sender: 'x', content: 'keep me', metadata: {}, received_at: new Date().toISOString(), request_id: null, run_id: 'run_same_commit',
    }, { duplicatesSince: new Date(0).toISOString(), capacity: 10 })).toBe('queued');
    const record = {
      run_id: 'run_same_commit', session_id: 'webhook:x', message: 'keep me', status: 'pending', provider: null, resolved_provider: 'offline',
      created_at: new Date().toISOString(), started_at: null, finished_at: null, response: null, error: null, tools_used: [],
      cost: { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 }, source: 'webhook', job_id: null, model: null, first_token_at: null,
    } as RunRecord;
    const now = Date.now();
    // Refused (the session is claimed by someone else): no run, and the message keeps waiting with its text.
    expect(await direct.sessionClaims.acquire({ session_id: 'webhook:x', holder_id: 'other', kind: 'run', expires_at: new Date(now + 60_000).toISOString() }, new Date(now).toISOString())).toBe(true);
    expect(await direct.runs.createClaimed!(record, { expires_at: new Date(now + 60_000).toISOString(), now: new Date(now).toISOString() })).toBe(false);
    expect((await direct.inbox.waiting('other', 10)).map((m) => m.content)).toEqual(['keep me']);
    await direct.sessionClaims.release('webhook:x', 'other');
    expect(await direct.runs.createClaimed!(record, { expires_at: new Date(now + 60_000).toISOString(), now: new Date(now).toISOString() })).toBe(true);
    expect(await direct.inbox.waiting('other', 10)).toEqual([]);
    const { rows } = await direct.database.query<{ content: string; waiting: boolean }>("SELECT content, waiting FROM channel_inbox WHERE run_id = 'run_same_commit'");
    expect(rows).toEqual([{ content: '', waiting: false }]);
  });
});
