import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresStorage } from '../src/storage/postgres/index.js';
import { eventually } from './helpers/agent.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { createTestDatabase, postgresTestUrl, type TestDatabase } from './helpers/postgres.js';

const SECRET = 'replica-replay-secret';

/**
 * Two `agentd serve` replicas (in-process apps) on one PostgreSQL database, with
 * `require_timestamp`: a signed request is accepted once by the service, not once per replica,
 * and X-Request-Ids are deduplicated per sender wherever the repeat lands.
 */
describe.skipIf(postgresTestUrl === null)('webhook replay protection across replicas', () => {
  let database: TestDatabase;
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    database = await createTestDatabase();
    await (await PostgresStorage.open(database.url)).close();
    const replica = () => startTestApp({
      config: {
        storage: { backend: 'postgres', postgres_url: database.url },
        webhook: { enabled: true, port: 0, secret: SECRET, require_timestamp: true },
      },
    });
    [a, b] = await Promise.all([replica(), replica()]);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
  });

  const signed = (payload: object, timestamp: number, headers: Record<string, string> = {}) => {
    const body = JSON.stringify(payload);
    const signature = `sha256=${createHmac('sha256', SECRET).update(`${timestamp}.${body}`).digest('hex')}`;
    return { body, headers: { 'content-type': 'application/json', 'x-service-timestamp': String(timestamp), 'x-service-signature': signature, ...headers } };
  };
  const send = (t: TestApp, request: ReturnType<typeof signed>) =>
    fetch(`http://127.0.0.1:${t.app.webhook!.channel.port}/`, { method: 'POST', ...request });
  const runsOf = (sender: string, count: number) => eventually(async () => {
    const runs = await a.app.agent.listRuns(`webhook:${sender}`, 50);
    return runs.length >= count && runs.every((r) => r.status === 'complete') ? runs : undefined;
  });
  const settle = () => new Promise((resolve) => setTimeout(resolve, 500));

  it('refuses on one replica a signed request the other accepted, without X-Request-Id', async () => {
    const request = signed({ prompt: 'what is 8+8?', sender: 'one' }, Math.floor(Date.now() / 1000));
    expect((await send(a, request)).status).toBe(202);
    const replay = await send(b, request);
    expect(replay.status).toBe(409);
    expect(await replay.json()).toEqual({ status: 'error', error: 'Request already received (replayed signature)', code: 'AGENTD_WEBHOOK_REPLAY' });
    expect((await send(a, request)).status).toBe(409);
    await runsOf('one', 1);
    await settle();
    expect((await b.app.agent.listRuns('webhook:one', 50)).map((r) => r.message)).toEqual(['what is 8+8?']);
  });

  it('accepts exactly one of the same signed request sent to both replicas at once', async () => {
    const now = Math.floor(Date.now() / 1000);
    for (let round = 0; round < 5; round++) {
      const request = signed({ prompt: `what is ${round}+1?`, sender: 'race' }, now);
      const answers = await Promise.all([send(a, request), send(b, request), send(a, request), send(b, request)]);
      expect(answers.map((r) => r.status).sort()).toEqual([202, 409, 409, 409]);
      for (const answer of answers) await answer.arrayBuffer();
    }
    const runs = await runsOf('race', 5);
    await settle();
    expect((await a.app.agent.listRuns('webhook:race', 50)).map((r) => r.message).sort())
      .toEqual(['what is 0+1?', 'what is 1+1?', 'what is 2+1?', 'what is 3+1?', 'what is 4+1?']);
    expect(runs).toHaveLength(5);
  });

  it('keeps senders\' X-Request-Ids apart, and answers a sender\'s reuse with another prompt 409 on either replica', async () => {
    const now = Math.floor(Date.now() / 1000);
    const id = { 'x-request-id': 'deploy-42' };
    expect((await send(a, signed({ prompt: 'what is 2+3?', sender: 'alice' }, now, id))).status).toBe(202);
    expect((await send(b, signed({ prompt: 'what is 4+5?', sender: 'bob' }, now, id))).status).toBe(202);
    const conflict = await send(b, signed({ prompt: 'what is 9+9?', sender: 'alice' }, now, id));
    expect(conflict.status).toBe(409);
    expect(await conflict.json()).toEqual({
      status: 'error', error: 'X-Request-Id was already used by this sender with a different prompt', code: 'AGENTD_IDEMPOTENCY_CONFLICT',
    });
    // Her retry under a new timestamp (a new signature) is a duplicate: 202, not run again.
    expect((await send(b, signed({ prompt: 'what is 2+3?', sender: 'alice' }, now + 1, id))).status).toBe(202);
    expect((await runsOf('alice', 1)).map((r) => r.message)).toEqual(['what is 2+3?']);
    expect((await runsOf('bob', 1)).map((r) => r.message)).toEqual(['what is 4+5?']);
    await settle();
    expect((await a.app.agent.listRuns('webhook:alice', 50)).map((r) => r.message)).toEqual(['what is 2+3?']);
  });
});
