import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DurableInbox, type QueuedMessage } from '../src/channels/inbox/durable-inbox.js';
import type { WebhookMessage } from '../src/channels/webhook/index.js';
import { createMemoryLogger } from '../src/log.js';
import { PostgresStorage } from '../src/storage/postgres/index.js';
import { eventually } from './helpers/agent.js';
import { createTestDatabase, postgresTestUrl, type TestDatabase } from './helpers/postgres.js';

/** The webhook's durable intake on one PostgreSQL database shared by two replicas. */
describe.skipIf(postgresTestUrl === null)('webhook messages shared by replicas', () => {
  let database: TestDatabase;
  const storages: PostgresStorage[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    await (await PostgresStorage.open(database.url)).close();
  });
  afterAll(async () => {
    for (const storage of storages) await storage.close();
    await database?.drop();
  });

  const replica = (owner: string, leaseMs: number) => {
    const storage = new PostgresStorage(database.url, { replicaId: owner, poolSize: 3 });
    storages.push(storage);
    return new DurableInbox({ channel: 'webhook', store: storage.inbox, owner, runExists: async () => false, log: createMemoryLogger(), leaseMs });
  };
  const message = (sender: string, n: number): WebhookMessage => ({
    content: `${sender} #${n}`, sender, metadata: { webhook_headers: {} }, received_at: new Date().toISOString(),
  });
  /** What the inbox hands its dispatcher: until `count` messages came, or `ms` passed. */
  const drain = async (inbox: DurableInbox, ms: number, count = Infinity): Promise<QueuedMessage[]> => {
    const out: QueuedMessage[] = [];
    const until = Date.now() + ms;
    while (Date.now() < until && out.length < count) {
      for (let m = inbox.receive(); m !== undefined; m = inbox.receive()) out.push(m);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return out;
  };

  it('runs each accepted message once, in order per sender, and takes over the messages of a replica that died', async () => {
    const a = replica('rep_a', 1_000);
    const b = replica('rep_b', 1_000);
    for (let n = 1; n <= 3; n++) expect(await a.accept(message('s1', n), undefined)).toBe('queued');
    expect(await b.accept(message('s2', 1), undefined)).toBe('queued');

    // Each replica claims the oldest message of the senders it accepted; a sender's next one waits.
    expect((await drain(a, 2_000, 1)).map((m) => m.content)).toEqual(['s1 #1']);
    expect((await drain(b, 2_000, 1)).map((m) => m.content)).toEqual(['s2 #1']);

    // Replica A dies holding s1 #1 (its run never created): its claim ends and B takes it, then
    // the rest of s1 in order, each once the previous one's run exists.
    b.startClaiming();
    const ran: string[] = [];
    for (let i = 0; i < 40 && ran.length < 3; i++) {
      for (const m of await drain(b, 100)) {
        ran.push(m.content);
        b.settled(m);
      }
    }
    expect(ran).toEqual(['s1 #1', 's1 #2', 's1 #3']);
    expect(await drain(a, 50)).toEqual([]);
    expect(await b.waitingCount()).toBe(1); // s2 #1: B holds it, not yet started
    await b.stopClaiming();
  });

  it('claims a sender\'s next message only once the previous one\'s run has ended and let go of its session, whichever replica ran it', async () => {
    const a = replica('rep_c', 1_500);
    const b = replica('rep_d', 1_500);
    const storeA = storages.at(-2)!;
    await storeA.database.query('DELETE FROM channel_inbox');
    for (let n = 1; n <= 2; n++) expect(await a.accept(message('s3', n), undefined)).toBe('queued');
    const [first] = await drain(a, 2_000, 1);
    expect(first!.content).toBe('s3 #1');

    // A creates the run of #1 and holds its session, as the runtime does, then says it started.
    const now = () => new Date().toISOString();
    const expiresAt = new Date(Date.now() + 60_000).toISOString();
    expect(await storeA.sessionClaims.acquire({ session_id: 'webhook:s3', holder_id: first!.runId, kind: 'run', expires_at: expiresAt }, now())).toBe(true);
    await storeA.runs.create({
      run_id: first!.runId, session_id: 'webhook:s3', message: first!.content, status: 'pending', provider: null, resolved_provider: 'offline',
      created_at: now(), started_at: null, finished_at: null, response: null, error: null, tools_used: [],
      cost: { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 }, source: 'webhook', job_id: null, model: null, first_token_at: null,
    });
    await storeA.runs.start(first!.runId, now(), { id: 1, name: 'run.start', data: '{}' });
    a.settled(first!);
    await a.stopClaiming();

    // While the run goes on, neither replica may start #2 (B would find the session busy).
    b.startClaiming();
    expect(await drain(b, 1_000)).toEqual([]);
    await storeA.runs.finish(first!.runId, {
      status: 'complete', finished_at: now(), response: 'done', error: null, tools_used: [], model: null, first_token_at: null, cost: { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 },
    }, { id: 2, name: 'run.complete', data: '{}' });
    // Finished, but its loop has not let go of the session yet.
    expect(await drain(b, 1_000)).toEqual([]);
    await storeA.sessionClaims.release('webhook:s3', first!.runId);
    expect((await drain(b, 5_000, 1)).map((m) => m.content)).toEqual(['s3 #2']);
    await b.stopClaiming();
  });
  it('gives back the messages a replica claimed and never started when another replica reaps its expired session claims', async () => {
    const a = replica('rep_e', 30_000);
    const b = replica('rep_f', 30_000);
    const [storeA, storeB] = storages.slice(-2) as [PostgresStorage, PostgresStorage];
    await storeA.database.query('DELETE FROM channel_inbox');
    // A runs s5's message (its session claimed) and has claimed s6's, which it never starts: it dies.
    expect(await a.accept(message('s5', 1), undefined)).toBe('queued');
    expect(await a.accept(message('s6', 1), undefined)).toBe('queued');
    const claimed = await drain(a, 2_000, 2);
    expect(claimed.map((m) => m.content).sort()).toEqual(['s5 #1', 's6 #1']);
    const running = claimed.find((m) => m.sender === 's5')!;
    const soon = new Date(Date.now() + 200).toISOString();
    expect(await storeA.sessionClaims.acquire({ session_id: 'webhook:s5', holder_id: running.runId, kind: 'run', expires_at: soon }, new Date().toISOString())).toBe(true);
    a.settled(running);
    await eventually(async () => (await b.waitingCount()) === 1);
    // A's claim on s6 #1 holds for 30 s: B cannot take it yet.
    b.startClaiming();
    b.claimNow();
    expect(await drain(b, 300)).toEqual([]);

    await new Promise((resolve) => setTimeout(resolve, 250));
    expect((await storeB.sessionClaims.reapExpired(new Date().toISOString(), 'interrupted', 10)).map((claim) => claim.owner)).toEqual(['rep_e']);
    b.claimNow();
    expect((await drain(b, 2_000, 1)).map((m) => m.content)).toEqual(['s6 #1']);
    await b.stopClaiming();
  });
});
