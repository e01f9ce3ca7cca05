import { afterEach, describe, expect, it } from 'vitest';
import { MESSAGE_OVERHEAD_TOKENS, REQUEST_OVERHEAD_TOKENS } from '../src/providers/estimate.js';
import { startFakeAnthropic } from './fakes/anthropic-server.js';
import type { FakeLlmServer, PlannedUsage, RecordedRequest } from './fakes/fake-llm-server.js';
import { startFakeOpenAI } from './fakes/openai-server.js';
import { finishedRun, json, postJson, readEvents, startRun } from './helpers/agent.js';
import { sqliteOf, startTestApp, type TestApp } from './helpers/app.js';

/**
 * `max_spend_usd` is a hard limit: before a provider call is sent it holds the most that call can
 * cost, counted from the request body as sent (system prompt and tool definitions included) and
 * the `max_tokens` it sends, and a call that does not fit is refused before any byte leaves. The
 * fake upstreams here report the largest usage each request allows, the worst a vendor could bill.
 */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

const ENV = { OPENAI_API_KEY: 'sk-test-openai-0123456789abcdefghij', ANTHROPIC_API_KEY: 'sk-ant-test-0123456789abcdef' };
const PRICE = { input_per_mtok: 3, output_per_mtok: 15 };
const CAP = 0.01;

type Vendor = 'openai' | 'anthropic';

async function fake(kind: Vendor): Promise<FakeLlmServer> {
  const server = kind === 'openai' ? await startFakeOpenAI() : await startFakeAnthropic();
  cleanups.push(() => server.close());
  return server;
}

async function app(kind: Vendor, server: FakeLlmServer, provider: Record<string, unknown>, maxSpendUsd = CAP): Promise<TestApp> {
  const t = await startTestApp({
    env: ENV,
    config: {
      providers: {
        default: kind,
        [kind]: {
          api_key_env: kind === 'openai' ? 'OPENAI_API_KEY' : 'ANTHROPIC_API_KEY',
          model: kind === 'openai' ? 'gpt-4.1-mini' : 'claude-haiku-4-5',
          base_url: server.baseUrl,
          price: PRICE,
          ...provider,
        },
      },
      network: { allowed_hosts: [server.host] },
      max_spend_usd: maxSpendUsd,
    },
  });
  cleanups.push(() => t.close());
  return t;
}

/** The output cap the request carries, in either vendor's field. */
const maxTokensSent = (request: RecordedRequest): number => request.body.max_tokens ?? request.body.max_completion_tokens ?? 0;

/**
 * The most the request allows the vendor to bill: an input token per byte of the body as it came
 * over the wire, plus the per-request and per-message overheads; output at the max_tokens it sent.
 * Messages are counted as the wire shows them (Anthropic's system prompt is one, outside the list).
 */
const largestUsage = (request: RecordedRequest): PlannedUsage => ({
  input: Buffer.byteLength(request.raw, 'utf8') + REQUEST_OVERHEAD_TOKENS
    + MESSAGE_OVERHEAD_TOKENS * ((request.body.messages?.length ?? 0) + (request.body.system ? 1 : 0)),
  output: maxTokensSent(request),
});
const costOf = (usage: PlannedUsage) => (usage.input * PRICE.input_per_mtok + usage.output * PRICE.output_per_mtok) / 1_000_000;

const spendOf = (t: TestApp, sessionId: string) => t.app.agent.costs.sessionSpend(sessionId);

describe.each(['openai', 'anthropic'] as const)('budget holds with the %s provider', (kind) => {
  it('holds the bound of the whole request as sent (tool definitions and every byte of the prompt), with the max_tokens it sends', async () => {
    const server = await fake(kind);
    // Non-ASCII text is more UTF-8 bytes than characters: the bound counts bytes.
    const message = 'Prix: 5 € — naïve façade, 漢字とかな, emoji 🧾🧾🧾';
    let heldWhileInFlight: number[] = [];
    let t!: TestApp;
    server.enqueue({
      text: 'noted',
      usage: () => {
        // The upstream is answering: the call's hold is still in the store.
        heldWhileInFlight = (sqliteOf(t.app).prepare('SELECT amount_usd FROM cost_holds').pluck().all() as number[]);
        return { input: 10, output: 2 };
      },
    });
    t = await app(kind, server, {}, 1);

    const chat = await postJson(t, '/api/v1/chat', { message });
    expect(chat.status).toBe(200);
    const request = server.requests[0]!;
    // Every request carries its output cap, the configured default when none is set.
    expect(kind === 'openai' ? request.body.max_completion_tokens : request.body.max_tokens).toBe(4096);
    expect(request.raw).toContain('"calculator"');
    expect(heldWhileInFlight).toHaveLength(1);
    // The hold is the request's bound, byte for byte — not the messages' text at four characters a token.
    expect(heldWhileInFlight[0]).toBeCloseTo(costOf(largestUsage(request)), 12);
    const textOnly = costOf({ input: Math.ceil(JSON.stringify([{ role: 'user', content: message }]).length / 4), output: 4096 });
    expect(heldWhileInFlight[0]).toBeGreaterThan(textOnly + 0.005);
    // Settled: the real cost is recorded and nothing is held.
    expect((await json(chat)).data.usage).toEqual({ prompt_tokens: 10, completion_tokens: 2, cost_usd: costOf({ input: 10, output: 2 }) });
    expect(sqliteOf(t.app).prepare('SELECT count(*) FROM cost_holds').pluck().get()).toBe(0);
  });

  it('never lets a session spend past max_spend_usd, when the upstream bills the most each request allows', async () => {
    const server = await fake(kind);
    const t = await app(kind, server, { max_tokens: 32 });
    const sent = () => server.requests.length;

    // One call's bound (about 2,950 input tokens with the tool definitions and the stream flags, 32 output) is about
    // $0.009: it fits under $0.01 once, and the upstream bills every token of it.
    server.enqueue({ text: 'first answer', usage: largestUsage });
    const first = await postJson(t, '/api/v1/chat', { message: 'first question' });
    expect(first.status).toBe(200);
    const sessionId = (await json(first)).data.session_id;
    expect(maxTokensSent(server.requests[0]!)).toBe(32);
    const billed = costOf(largestUsage(server.requests[0]!));
    expect(billed).toBeGreaterThan(CAP / 2);
    expect(await spendOf(t, sessionId)).toBeCloseTo(billed, 12);
    expect(await spendOf(t, sessionId)).toBeLessThanOrEqual(CAP);

    // The next call on the session could cost as much again: refused before it is sent, as a chat and as a run.
    const refused = await postJson(t, '/api/v1/chat', { message: 'second question', session_id: sessionId });
    expect(refused.status).toBe(409);
    expect((await json(refused)).error).toMatch(
      new RegExp(`^budget exceeded: session '${sessionId}' has spent \\$[0-9.]+ of max_spend_usd \\$0\\.01; the next call may cost up to \\$[0-9.]+ \\(\\d+ input tokens of its request, providers\\.${kind}\\.max_tokens 32 output tokens\\)`),
    );
    const run = await startRun(t, { message: 'third question', session_id: sessionId });
    const done = await finishedRun(t, run.run_id);
    expect(done).toMatchObject({ status: 'error' });
    expect(done.error).toMatch(/^budget exceeded/);
    expect(sent()).toBe(1);

    // A run whose first call asks for a tool: its second call, longer by the tool's round trip, no
    // longer fits beside the first one's cost, so the run ends with the budget error and is not sent.
    server.enqueue({ toolCalls: [{ id: 'call_calc', name: 'calculator', arguments: { expression: '6*7' } }], usage: largestUsage }, { text: 'never sent' });
    const toolRun = await startRun(t, { message: 'what is six times seven?' });
    const ended = await finishedRun(t, toolRun.run_id);
    expect(ended).toMatchObject({ status: 'error' });
    expect(ended.error).toMatch(/^budget exceeded: .*the next call may cost up to/);
    expect((await readEvents(t, toolRun.run_id)).events.map((e) => e.event)).toEqual(['run.start', 'tool.request', 'tool.result', 'run.error']);
    expect(sent()).toBe(2);
    expect(await spendOf(t, toolRun.session_id)).toBeCloseTo(costOf(largestUsage(server.requests[1]!)), 12);
    expect(await spendOf(t, toolRun.session_id)).toBeLessThanOrEqual(CAP);
    expect(server.pending()).toBe(1);
  });

  it('refuses the second call after a cheap first one when its bound does not fit (the first cost $0.006 of $0.01)', async () => {
    const server = await fake(kind);
    const t = await app(kind, server, { max_tokens: 32 });
    server.enqueue({ text: 'cheap', usage: { input: 1_000, output: 200 } }, { text: 'too dear', usage: { input: 1_000, output: 200 } });
    const first = await json(await postJson(t, '/api/v1/chat', { message: 'one' }));
    expect(first.data.usage.cost_usd).toBeCloseTo(0.006, 12);
    const second = await postJson(t, '/api/v1/chat', { message: 'two', session_id: first.data.session_id });
    expect(second.status).toBe(409);
    expect(server.requests).toHaveLength(1);
    expect(await spendOf(t, first.data.session_id)).toBeCloseTo(0.006, 12);
  });

  it('refuses a call whose bound alone passes the cap before sending it, and says which setting bounds it', async () => {
    const server = await fake(kind);
    // The default max_tokens, 4,096 output tokens at $15 per million, is $0.06 by itself.
    const t = await app(kind, server, {});
    const chat = await postJson(t, '/api/v1/chat', { message: 'hello' });
    expect(chat.status).toBe(409);
    expect((await json(chat)).error).toMatch(/has spent \$0 of max_spend_usd \$0\.01; the next call may cost up to \$0\.0[6-9]\d* .*max_tokens 4096 output tokens/);
    expect(server.requests).toHaveLength(0);
  });
});

it('keeps the offline provider free under a cap: it holds nothing and is never refused for its size', async () => {
  const t = await startTestApp({ config: { max_spend_usd: 0.000001 } });
  cleanups.push(() => t.close());
  for (const message of ['what is 2+2?', 'what is 3+3?']) {
    const chat = await postJson(t, '/api/v1/chat', { message, provider: 'offline' });
    expect(chat.status).toBe(200);
    expect((await json(chat)).data.usage.cost_usd).toBe(0);
  }
});
