import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteStorage } from '../src/storage/sqlite/index.js';
import { eventually } from './helpers/agent.js';
import { sqliteOf, startTestApp, type TestApp } from './helpers/app.js';

const SECRET = 'webhook-durable-secret';
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

function tempHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'agentd-inbox-'));
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  return home;
}

async function app(home: string, webhook: Record<string, unknown> = {}): Promise<TestApp> {
  const t = await startTestApp({ home, config: { webhook: { enabled: true, port: 0, secret: SECRET, ...webhook } } });
  cleanups.push(() => t.close());
  return t;
}

function post(t: TestApp, payload: object, headers: Record<string, string> = {}, timestamp?: number): Promise<Response> {
  const body = JSON.stringify(payload);
  const signed = timestamp === undefined ? body : `${timestamp}.${body}`;
  const signature = `sha256=${createHmac('sha256', SECRET).update(signed).digest('hex')}`;
  const extra: Record<string, string> = timestamp === undefined ? {} : { 'x-service-timestamp': String(timestamp) };
  return fetch(`http://127.0.0.1:${t.app.webhook!.channel.port}/`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-service-signature': signature, ...extra, ...headers }, body,
  });
}

const completedRuns = (t: TestApp, sender: string) =>
  eventually(async () => {
    const runs = await t.app.agent.listRuns(`webhook:${sender}`, 50);
    return runs.length > 0 && runs.every((r) => r.status === 'complete') ? runs : undefined;
  });

describe('durable webhook intake in agentd serve', () => {
  it('has the message stored, with its run id and headers, by the time the 202 arrives', async () => {
    const t = await app(tempHome());
    // Stop the dispatcher from taking it, so the row is seen as it was at the 202.
    const response = await post(t, { prompt: 'what is 6*7?', sender: 'ci' }, { 'x-request-id': 'delivery-1', 'user-agent': 'ci/1' });
    expect(response.status).toBe(202);
    const row = sqliteOf(t.app).prepare("SELECT sender, metadata, received_at, request_id, run_id FROM channel_inbox").get() as Record<string, string>;
    expect(row).toMatchObject({ sender: 'ci', request_id: 'delivery-1', run_id: expect.stringMatching(/^run_/) });
    expect(JSON.parse(row.metadata!).webhook_headers).toMatchObject({ 'X-Request-Id': 'delivery-1', 'User-Agent': 'ci/1' });
    expect(Date.parse(row.received_at!)).toBeGreaterThan(Date.now() - 60_000);
    // It runs under the id chosen at acceptance, and then no longer waits; its text is erased from the inbox.
    const [run] = await completedRuns(t, 'ci');
    expect(run).toMatchObject({ run_id: row.run_id, message: 'what is 6*7?' });
    await eventually(() => (sqliteOf(t.app).prepare('SELECT waiting, content FROM channel_inbox').get() as { waiting: number; content: string }).waiting === 0);
    expect(sqliteOf(t.app).prepare('SELECT content FROM channel_inbox').get()).toEqual({ content: '' });
  });

  it('answers a repeated X-Request-Id 202 without running it again, and audits it as a duplicate', async () => {
    const t = await app(tempHome());
    const first = await post(t, { prompt: 'what is 2+2?', sender: 'ci' }, { 'x-request-id': 'delivery-7' });
    const again = await post(t, { prompt: 'what is 2+2?', sender: 'ci' }, { 'x-request-id': 'delivery-7' });
    const other = await post(t, { prompt: 'what is 3+3?', sender: 'ci' }, { 'x-request-id': 'delivery-8' });
    expect([first.status, again.status, other.status]).toEqual([202, 202, 202]);
    expect(await again.json()).toEqual({ status: 'queued' });
    const runs = await completedRuns(t, 'ci');
    await new Promise((r) => setTimeout(r, 200));
    expect((await t.app.agent.listRuns('webhook:ci', 50)).map((r) => r.message).sort()).toEqual(['what is 2+2?', 'what is 3+3?']);
    expect(runs.length).toBeLessThanOrEqual(2);
    const details = (sqliteOf(t.app).prepare("SELECT detail FROM audit_events WHERE event_type = 'webhook.accept' ORDER BY seq").all() as { detail: string }[])
      .map((row) => JSON.parse(row.detail).duplicate ?? false);
    expect(details).toEqual([false, true, false]);
  });

  it('still catches the repeat after a restart', async () => {
    const home = tempHome();
    const first = await app(home);
    expect((await post(first, { prompt: 'what is 2+2?', sender: 'ci' }, { 'x-request-id': 'delivery-9' })).status).toBe(202);
    await completedRuns(first, 'ci');
    await first.close();
    const second = await app(home);
    expect((await post(second, { prompt: 'what is 2+2?', sender: 'ci' }, { 'x-request-id': 'delivery-9' })).status).toBe(202);
    await new Promise((r) => setTimeout(r, 300));
    expect(await second.app.agent.listRuns('webhook:ci', 50)).toHaveLength(1);
  });

  it('runs at start what was acknowledged and never run, in order per sender, and never re-runs a message whose run exists', async () => {
    const home = tempHome();
    // What a process killed right after its 202s leaves behind: three waiting messages, one of
    // which already has its run (it was interrupted).
    const storage = new SqliteStorage(join(home, 'agentd.db'));
    const accept = (n: number, sender: string) => storage.inbox.accept({
      channel: 'webhook', sender, content: `what is ${n}+${n}?`, metadata: {}, received_at: new Date().toISOString(),
      request_id: null, run_id: `run_left${n}`,
    }, { duplicatesSince: '2000-01-01T00:00:00Z', capacity: 1000 });
    await accept(1, 'a');
    await accept(2, 'a');
    await accept(3, 'b');
    await storage.runs.create({
      run_id: 'run_left3', session_id: 'webhook:b', message: 'what is 3+3?', status: 'running', provider: null, resolved_provider: 'offline',
      created_at: new Date().toISOString(), started_at: null, finished_at: null, response: null, error: null, tools_used: [],
      cost: { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 }, source: 'webhook', job_id: null, model: null, first_token_at: null,
    });
    await storage.close();

    const t = await app(home);
    const runs = await eventually(async () => {
      const list = await t.app.agent.listRuns('webhook:a', 10);
      return list.length === 2 && list.every((r) => r.status === 'complete') ? list : undefined;
    });
    // Newest first: the second message ran after the first had finished.
    expect(runs.map((r) => r.run_id)).toEqual(['run_left2', 'run_left1']);
    expect(runs[0]!.response).toContain('4');
    expect(Date.parse(runs[0]!.started_at!)).toBeGreaterThanOrEqual(Date.parse(runs[1]!.finished_at!));
    // The interrupted one stays as the restart marked it.
    expect(await t.app.agent.listRuns('webhook:b', 10)).toEqual([expect.objectContaining({ run_id: 'run_left3', status: 'error', error: 'interrupted by restart' })]);
    expect(sqliteOf(t.app).prepare('SELECT count(*) AS n FROM channel_inbox WHERE waiting = 1').get()).toEqual({ n: 0 });
    expect(t.log.lines.some((l) => l.includes('2 message(s) accepted before the last shutdown will run now'))).toBe(true);
  });

  it('answers 503 with the envelope once shutdown has begun, and keeps what it had accepted', async () => {
    const t = await app(tempHome());
    const keepAlive = await fetch(`http://127.0.0.1:${t.app.webhook!.channel.port}/`, { method: 'GET' });
    expect(keepAlive.status).toBe(405);
    t.app.webhook!.channel.refuseNew();
    const refused = await post(t, { prompt: 'late', sender: 'ci' });
    expect(refused.status).toBe(503);
    expect(await refused.json()).toEqual({ status: 'error', error: 'The service is shutting down', code: 'AGENTD_SHUTTING_DOWN' });
    expect(refused.headers.get('x-content-type-options')).toBe('nosniff');
    expect(sqliteOf(t.app).prepare('SELECT count(*) AS n FROM channel_inbox').get()).toEqual({ n: 0 });
  });

  it('refuses a timestamped request outside the configured tolerance, and a replay inside it', async () => {
    const t = await app(tempHome(), { require_timestamp: true, timestamp_tolerance_seconds: 60 });
    const now = Math.floor(Date.now() / 1000);
    const stale = await post(t, { prompt: 'old', sender: 'ci' }, {}, now - 120);
    expect(stale.status).toBe(401);
    expect(((await stale.json()) as { error: string }).error).toBe('X-Service-Timestamp is more than 60 s from the server clock');
    expect((await post(t, { prompt: 'what is 1+1?', sender: 'ci' }, {})).status).toBe(401);
    expect((await post(t, { prompt: 'what is 1+1?', sender: 'ci' }, {}, now)).status).toBe(202);
    const replay = await post(t, { prompt: 'what is 1+1?', sender: 'ci' }, {}, now);
    expect(replay.status).toBe(409);
  });

  it('refuses the same signed request after a restart within the tolerance, and runs it once', async () => {
    const home = tempHome();
    const first = await app(home, { require_timestamp: true });
    const now = Math.floor(Date.now() / 1000);
    const payload = { prompt: 'what is 5+5?', sender: 'ci' };
    expect((await post(first, payload, {}, now)).status).toBe(202);
    await completedRuns(first, 'ci');
    await first.close();

    const second = await app(home, { require_timestamp: true });
    const replay = await post(second, payload, {}, now);
    expect(replay.status).toBe(409);
    expect(await replay.json()).toEqual({ status: 'error', error: 'Request already received (replayed signature)', code: 'AGENTD_WEBHOOK_REPLAY' });
    // Hex case makes no difference to the signature, nor to the replay check.
    const body = JSON.stringify(payload);
    const upper = `sha256=${createHmac('sha256', SECRET).update(`${now}.${body}`).digest('hex').toUpperCase()}`;
    const shouted = await fetch(`http://127.0.0.1:${second.app.webhook!.channel.port}/`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-service-timestamp': String(now), 'x-service-signature': upper }, body,
    });
    expect(shouted.status).toBe(409);
    // A fresh timestamp is a new request.
    expect((await post(second, { prompt: 'what is 6+6?', sender: 'ci' }, {}, now + 1)).status).toBe(202);
    const runs = await eventually(async () => {
      const list = await second.app.agent.listRuns('webhook:ci', 10);
      return list.length === 2 && list.every((r) => r.status === 'complete') ? list : undefined;
    });
    expect(runs.map((r) => r.message)).toEqual(['what is 6+6?', 'what is 5+5?']);
    const rows = sqliteOf(second.app).prepare('SELECT signature, expires_at FROM channel_signatures ORDER BY id').all();
    expect(rows).toEqual([
      { signature: upper.toLowerCase(), expires_at: new Date((now + 301) * 1000).toISOString() },
      { signature: expect.stringMatching(/^sha256=[0-9a-f]{64}$/), expires_at: new Date((now + 302) * 1000).toISOString() },
    ]);
  });

  it('runs two senders\' messages that share an X-Request-Id, each once', async () => {
    const t = await app(tempHome());
    const id = { 'x-request-id': 'deploy-42' };
    expect((await post(t, { prompt: 'what is 2+3?', sender: 'alice' }, id)).status).toBe(202);
    expect((await post(t, { prompt: 'what is 4+5?', sender: 'bob' }, id)).status).toBe(202);
    // "аlice" with a Cyrillic а is sanitised to "lice": neither alice nor a collision with her.
    expect((await post(t, { prompt: 'what is 1+9?', sender: '\u0430lice' }, id)).status).toBe(202);
    // Ids are compared exactly: another case is another id.
    expect((await post(t, { prompt: 'what is 7+7?', sender: 'alice' }, { 'x-request-id': 'Deploy-42' })).status).toBe(202);
    const alice = await eventually(async () => {
      const list = await t.app.agent.listRuns('webhook:alice', 10);
      return list.length === 2 && list.every((r) => r.status === 'complete') ? list : undefined;
    });
    expect(alice.map((r) => r.message)).toEqual(['what is 7+7?', 'what is 2+3?']);
    expect((await completedRuns(t, 'bob')).map((r) => r.message)).toEqual(['what is 4+5?']);
    expect((await completedRuns(t, 'lice')).map((r) => r.message)).toEqual(['what is 1+9?']);
  });

  it('answers a sender\'s repeated X-Request-Id with another prompt 409 AGENTD_IDEMPOTENCY_CONFLICT, also after a restart', async () => {
    const home = tempHome();
    const first = await app(home);
    const id = { 'x-request-id': 'deploy-42' };
    expect((await post(first, { prompt: 'what is 2+3?', sender: 'alice' }, id)).status).toBe(202);
    const conflict = await post(first, { prompt: 'what is 9+9?', sender: 'alice' }, id);
    expect(conflict.status).toBe(409);
    expect(await conflict.json()).toEqual({
      status: 'error', error: 'X-Request-Id was already used by this sender with a different prompt', code: 'AGENTD_IDEMPOTENCY_CONFLICT',
    });
    await completedRuns(first, 'alice');
    await first.close();

    // The prompt's text is erased once its run exists; its digest still tells a retry from a conflict.
    const second = await app(home);
    expect((await post(second, { prompt: 'what is 9+9?', sender: 'alice' }, id)).status).toBe(409);
    expect((await post(second, { sender: 'alice', prompt: 'what is 2+3?' }, id)).status).toBe(202);
    await new Promise((r) => setTimeout(r, 300));
    expect((await second.app.agent.listRuns('webhook:alice', 10)).map((r) => r.message)).toEqual(['what is 2+3?']);
    const rejected = (sqliteOf(second.app).prepare("SELECT detail FROM audit_events WHERE event_type = 'webhook.reject'").all() as { detail: string }[])
      .map((row) => JSON.parse(row.detail) as { status: number; reason: string });
    expect(rejected.map((d) => [d.status, d.reason])).toEqual(Array(2).fill([409, 'X-Request-Id was already used by this sender with a different prompt']));
  });
});
