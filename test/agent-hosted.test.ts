import { afterEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic } from './fakes/anthropic-server.js';
import type { FakeLlmServer } from './fakes/fake-llm-server.js';
import { startFakeOpenAI } from './fakes/openai-server.js';
import { finishedRun, json, postJson, readEvents, startRun } from './helpers/agent.js';
import { sqliteOf, startTestApp, type TestApp } from './helpers/app.js';

/**
 * Hosted providers end to end: the real app, the official SDKs, the gateway with its policy, and
 * fake upstream servers on 127.0.0.1 speaking the vendors' wire formats (tool calls and usage).
 */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function fake(kind: 'openai' | 'anthropic', options = {}): Promise<FakeLlmServer> {
  const server = kind === 'openai' ? await startFakeOpenAI(options) : await startFakeAnthropic(options);
  cleanups.push(() => server.close());
  return server;
}

async function app(options: Parameters<typeof startTestApp>[0]): Promise<TestApp> {
  const t = await startTestApp(options);
  cleanups.push(() => t.close());
  return t;
}

const ENV = { OPENAI_API_KEY: 'sk-test-openai-0123456789abcdefghij', ANTHROPIC_API_KEY: 'sk-ant-test-0123456789abcdef' };

const PROVIDER_DEFAULTS = {
  openai: { api_key_env: 'OPENAI_API_KEY', model: 'gpt-4.1-mini' },
  anthropic: { api_key_env: 'ANTHROPIC_API_KEY', model: 'claude-haiku-4-5' },
};

function hostedConfig(kind: 'openai' | 'anthropic', server: FakeLlmServer, extra: Record<string, unknown> = {}) {
  return {
    providers: { default: kind, [kind]: { ...PROVIDER_DEFAULTS[kind], base_url: server.baseUrl, ...extra } },
    network: { allowed_hosts: [server.host] },
  };
}

function auditRows(t: TestApp, eventType: string, taskId: string): { result: string; detail: string }[] {
  return sqliteOf(t.app)
    .prepare('SELECT result, detail FROM audit_events WHERE event_type = ? AND task_id = ? ORDER BY seq')
    .all(eventType, taskId) as { result: string; detail: string }[];
}

describe.each(['openai', 'anthropic'] as const)('%s provider through the gateway', (kind) => {
  it('runs a tool call round trip and answers from the tool result', async () => {
    const server = await fake(kind);
    server.enqueue(
      { toolCalls: [{ id: 'call_calc', name: 'calculator', arguments: { expression: '6*7' } }], usage: { input: 100, output: 20 } },
      { text: 'The answer is 42.', usage: { input: 150, output: 10 } },
    );
    const t = await app({ env: ENV, config: hostedConfig(kind, server) });

    const run = await startRun(t, { message: 'what is six times seven?' });
    expect(run).toMatchObject({ status: 'pending', provider: null, resolved_provider: kind });
    const { events } = await readEvents(t, run.run_id);
    expect(events.map((e) => e.event)).toEqual(['run.start', 'tool.request', 'tool.result', 'run.complete']);
    expect(JSON.parse(events[1]!.data)).toEqual({ run_id: run.run_id, call_id: 'call_calc', tool: 'calculator', arguments: { expression: '6*7' } });
    expect(JSON.parse(events[2]!.data)).toMatchObject({ call_id: 'call_calc', tool: 'calculator', is_error: false });
    expect(JSON.parse(events[3]!.data)).toEqual({
      run_id: run.run_id,
      response: 'The answer is 42.',
      resolved_provider: kind,
      tools_used: ['calculator'],
      // A self-hosted base_url (not the vendor's API) is priced at 0.
      cost: { prompt_tokens: 250, completion_tokens: 30, cost_usd: 0 },
    });

    // The second request carried the tool result back to the model.
    expect(server.requests).toHaveLength(2);
    expect(JSON.stringify(server.requests[1]!.body.messages)).toContain('42');
    const headers = server.requests[0]!.headers;
    const key = headers['x-api-key'] ?? headers.authorization;
    expect(String(key)).toContain(kind === 'openai' ? ENV.OPENAI_API_KEY : ENV.ANTHROPIC_API_KEY);

    // The gateway audited both calls as allowed network requests of this run.
    const network = auditRows(t, 'network_request', run.run_id);
    expect(network.map((row) => row.result)).toEqual(['allow', 'allow']);
  });

  it('is refused by network policy when the host is not allowed: no request reaches the server', async () => {
    const server = await fake(kind);
    const t = await app({ env: ENV, config: { providers: { default: kind, [kind]: { ...PROVIDER_DEFAULTS[kind], base_url: server.baseUrl } } } });

    const run = await startRun(t, { message: 'hello' });
    const done = await finishedRun(t, run.run_id);
    expect(done.status).toBe('error');
    expect(done.error).toMatch(/network policy/);
    expect(server.requests).toHaveLength(0);

    const chat = await postJson(t, '/api/v1/chat', { message: 'hello' });
    expect(chat.status).toBe(502);
    expect((await json(chat)).error).toMatch(/network policy/);
    expect(server.requests).toHaveLength(0);
  });
});

describe('provider override', () => {
  it('uses the named provider for that request only; the default and the session keep theirs', async () => {
    const server = await fake('openai');
    server.enqueue({ text: 'from openai' });
    const config = hostedConfig('openai', server);
    const t = await app({ env: ENV, config: { ...config, providers: { ...config.providers, default: 'offline' } } });
    const session = (await json(await postJson(t, '/api/v1/sessions', {}))).data;
    expect(session.provider).toBe('offline');

    const run = await startRun(t, { message: 'hello', session_id: session.id, provider: 'openai' });
    expect(run).toMatchObject({ provider: 'openai', resolved_provider: 'openai' });
    expect((await finishedRun(t, run.run_id)).response).toBe('from openai');
    expect(server.requests).toHaveLength(1);

    const providers = (await json(await t.request('/api/v1/providers'))).data.providers;
    expect(providers.filter((p: any) => p.is_default).map((p: any) => p.name)).toEqual(['offline']);
    expect(providers.find((p: any) => p.name === 'openai').available).toBe(true);
    expect((await json(await t.request(`/api/v1/sessions/${session.id}`))).data.provider).toBe('offline');
    const next = await startRun(t, { message: 'what is 2*3?', session_id: session.id });
    expect(next).toMatchObject({ provider: null, resolved_provider: 'offline' });
    expect((await finishedRun(t, next.run_id)).response).toContain('6');
    expect(server.requests).toHaveLength(1);
    // The openai turn was stored with its provider.
    const turns = (await json(await t.request(`/api/v1/sessions/${session.id}/history`))).data.turns;
    expect(turns.map((turn: any) => turn.provider)).toEqual(['openai', 'openai', 'offline', 'offline']);
  });

  it('ends a run that keeps asking for tools at the iteration cap with run.error', async () => {
    const server = await fake('openai');
    for (let i = 0; i < 8; i++) server.enqueue({ toolCalls: [{ name: 'current_time', arguments: {} }] });
    const t = await app({ env: ENV, config: hostedConfig('openai', server) });
    const run = await startRun(t, { message: 'loop forever' });
    const { events } = await readEvents(t, run.run_id);
    expect(events.filter((e) => e.event === 'tool.request')).toHaveLength(8);
    expect(events.at(-1)!.event).toBe('run.error');
    expect(JSON.parse(events.at(-1)!.data).error).toMatch(/did not reach a final answer within 8 model calls/);
    expect(server.requests).toHaveLength(8);
  });
});

describe('costs and the budget cap', () => {
  const price = { input_per_mtok: 1_000_000, output_per_mtok: 1_000_000 }; // $1 per token: easy sums

  it('records every provider call with its price and reports it in the summary', async () => {
    const server = await fake('openai');
    server.enqueue({ text: 'one', usage: { input: 2, output: 1 } }, { text: 'two', usage: { input: 3, output: 2 } });
    const t = await app({ env: ENV, config: hostedConfig('openai', server, { price }) });

    const first = await json(await postJson(t, '/api/v1/chat', { message: 'first' }));
    expect(first.data.usage).toEqual({ prompt_tokens: 2, completion_tokens: 1, cost_usd: 3 });
    const second = await json(await postJson(t, '/api/v1/chat', { message: 'second' }));
    expect(second.data.usage.cost_usd).toBe(5);

    const summary = (await json(await t.request('/api/v1/costs/summary'))).data;
    expect(summary.totals).toEqual({ calls: 2, prompt_tokens: 5, completion_tokens: 3, cost_usd: 8, sessions: 2 });
    expect(summary.max_spend_usd).toBe(0);
    expect(summary.sessions.map((s: any) => s.session_id)).toEqual([second.data.session_id, first.data.session_id]);
    expect(summary.sessions[0]).toMatchObject({ calls: 1, prompt_tokens: 3, completion_tokens: 2, cost_usd: 5 });
    expect(typeof summary.sessions[0].last_call_at).toBe('string');
    const limited = (await json(await t.request('/api/v1/costs/summary?limit=1'))).data;
    expect(limited.sessions).toHaveLength(1);
    expect((await t.request('/api/v1/costs/summary?limit=x')).status).toBe(400);
  });

  // $1 per thousand tokens, and short answers: a call's bound (about 2,900 input tokens of its request
  // with the tool definitions, 100 output tokens) costs about $3, so it fits under the caps below.
  const cheaper = { price: { input_per_mtok: 1_000, output_per_mtok: 1_000 }, max_tokens: 100 };

  it('refuses the next call once a session has reached max_spend_usd: chat 409, run → run.error', async () => {
    const server = await fake('openai');
    server.enqueue({ text: 'spent', usage: { input: 4_000, output: 1_000 } });
    const t = await app({ env: ENV, config: { ...hostedConfig('openai', server, cheaper), max_spend_usd: 5 } });

    const first = await json(await postJson(t, '/api/v1/chat', { message: 'spend it all' }));
    expect(first.data.usage.cost_usd).toBe(5);
    const sessionId = first.data.session_id;

    const refused = await postJson(t, '/api/v1/chat', { message: 'more', session_id: sessionId });
    expect(refused.status).toBe(409);
    expect((await json(refused)).error).toMatch(/budget exceeded/);

    const run = await startRun(t, { message: 'more', session_id: sessionId });
    const done = await finishedRun(t, run.run_id);
    expect(done).toMatchObject({ status: 'error' });
    expect(done.error).toMatch(/^budget exceeded/);
    const { events } = await readEvents(t, run.run_id);
    expect(events.map((e) => e.event)).toEqual(['run.start', 'run.error']);
    expect(server.requests).toHaveLength(1);

    // Another session still has its whole budget.
    const other = await postJson(t, '/api/v1/chat', { message: 'fresh' });
    expect(other.status).toBe(200);
    expect((await json(await t.request('/api/v1/costs/summary'))).data.max_spend_usd).toBe(5);
  });

  it('keeps a stable session over its cap across a restart (webhook/job sessions keep their id)', async () => {
    const server = await fake('openai');
    server.enqueue({ text: 'spent', usage: { input: 10_000, output: 0 } });
    const config = { ...hostedConfig('openai', server, cheaper), max_spend_usd: 10 };
    const first = await startTestApp({ env: ENV, config });
    const home = first.home;
    const run = await first.app.agent.startChannelRun({ sessionId: 'job:nightly', message: 'report', source: 'job', jobId: 'nightly' });
    expect((await first.app.agent.whenRunFinished(run.run_id))?.status).toBe('complete');
    await first.app.close();

    const second = await app({ env: ENV, config, home });
    expect(await second.app.agent.costs.sessionSpend('job:nightly')).toBe(10);
    const again = await second.app.agent.startChannelRun({ sessionId: 'job:nightly', message: 'report', source: 'job', jobId: 'nightly' });
    const done = await second.app.agent.whenRunFinished(again.run_id);
    expect(done).toMatchObject({ status: 'error' });
    expect(done?.error).toMatch(/budget exceeded: session 'job:nightly' has spent \$10 of max_spend_usd \$10/);
    expect(server.requests).toHaveLength(1);
  });

  it('refuses a hosted model with no known price while a cap is set, saying how to set one', async () => {
    // The vendor's API (no base_url) with a model the price table does not know.
    const t = await app({ env: ENV, config: { providers: { openai: { api_key_env: 'OPENAI_API_KEY', model: 'gpt-unknown-9' } }, max_spend_usd: 1 } });
    const chat = await postJson(t, '/api/v1/chat', { message: 'hi', provider: 'openai' });
    expect(chat.status).toBe(409);
    expect((await json(chat)).error).toMatch(/no price is known for model 'gpt-unknown-9'.*providers\.openai\.price/);
    const run = await startRun(t, { message: 'hi', provider: 'openai' });
    expect((await finishedRun(t, run.run_id)).error).toMatch(/providers\.openai\.price/);
    // The offline provider is free, so it is never refused for want of a price.
    expect((await postJson(t, '/api/v1/chat', { message: 'hi' })).status).toBe(200);
  });
});
