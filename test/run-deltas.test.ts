import { afterEach, describe, expect, it } from 'vitest';
import { AgentdClient, type RunEvent, type RunLiveEvent } from '../src/client/index.js';
import { startFakeAnthropic } from './fakes/anthropic-server.js';
import type { FakeLlmServer } from './fakes/fake-llm-server.js';
import { startFakeOpenAI } from './fakes/openai-server.js';
import { eventually, json, readEvents, startRun } from './helpers/agent.js';
import { startTestApp, type TestApp } from './helpers/app.js';

/**
 * The answer as it is written (`include=deltas`): the real app, the official SDKs streaming through
 * the gateway from fake upstreams on 127.0.0.1 speaking the vendors' SSE formats, and the typed
 * client reading the run's stream.
 */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

const ENV = { OPENAI_API_KEY: 'sk-test-openai-0123456789abcdefghij', ANTHROPIC_API_KEY: 'sk-ant-test-0123456789abcdef' };
const MODELS = { openai: 'gpt-4.1-mini', anthropic: 'claude-haiku-4-5' };
/** Split by the fakes' 8-character chunks across several pieces. */
const SECRET = 'sk-ant-api03-QWERTYUIOPASDFGHJKLZXCVBNM0123';

async function fake(kind: 'openai' | 'anthropic'): Promise<FakeLlmServer> {
  const server = kind === 'openai' ? await startFakeOpenAI() : await startFakeAnthropic();
  cleanups.push(() => server.close());
  return server;
}

async function appFor(kind: 'openai' | 'anthropic', server: FakeLlmServer): Promise<TestApp> {
  const t = await startTestApp({
    env: ENV,
    config: {
      providers: { default: kind, [kind]: { api_key_env: `${kind.toUpperCase()}_API_KEY`, model: MODELS[kind], base_url: server.baseUrl } },
      network: { allowed_hosts: [server.host] },
    },
  });
  cleanups.push(() => t.close());
  return t;
}

type Timed = (RunEvent | RunLiveEvent) & { at: number };

/** The run's stream with deltas, through the typed client, each event with the time it arrived. */
async function watch(t: TestApp, runId: string, lastEventId?: number): Promise<Timed[]> {
  const client = new AgentdClient({ baseUrl: t.url, apiKey: t.apiKey });
  const seen: Timed[] = [];
  for await (const event of client.runEvents(runId, { includeDeltas: true, lastEventId })) seen.push({ ...event, at: performance.now() });
  return seen;
}

const deltas = (events: Timed[]) => events.filter((e) => e.event === 'run.delta').map((e) => (e as RunLiveEvent).data.text);
/** What a viewer was shown of the text: run.text (when it joined mid-answer), then the deltas. */
const shown = (events: Timed[]) => events.filter((e) => e.event === 'run.delta' || e.event === 'run.text').map((e) => (e as RunLiveEvent).data.text).join('');
const terminal = (events: Timed[]) => events.find((e) => e.event === 'run.complete') as Extract<Timed, { event: 'run.complete' }>;

describe.each(['openai', 'anthropic'] as const)('streamed answers from %s', (kind) => {
  it('sends censored pieces before the terminal event; they add up to the stored answer; usage from the stream', async () => {
    const server = await fake(kind);
    const text = `Here is what you asked for: ${SECRET} is the key, keep it safe. That is all I have to say about it today.`;
    server.enqueue({ text, usage: { input: 321, output: 54 }, chunkDelayMs: 15 });
    const t = await appFor(kind, server);
    const run = await startRun(t, { message: 'the key please' });
    const events = await watch(t, run.run_id);

    const pieces = deltas(events);
    const end = terminal(events);
    expect(pieces.length).toBeGreaterThan(2);
    expect(end.data.response).toContain('[REDACTED]');
    expect(pieces.join('')).toBe(end.data.response);
    // No piece holds any part of the secret: it arrived in 8-character chunks, none released before its end.
    for (const piece of pieces) {
      for (let i = 0; i + 6 <= SECRET.length; i++) expect(piece).not.toContain(SECRET.slice(i, i + 6));
    }
    // Streamed: the first piece came well before the end (the upstream took 15 ms per chunk).
    const first = events.find((e) => e.event === 'run.delta')!;
    expect(end.at - first.at).toBeGreaterThan(60);
    expect(events.findIndex((e) => e.event === 'run.delta')).toBeLessThan(events.indexOf(end));
    // Usage is the stream's final usage.
    expect(end.data.cost).toMatchObject({ prompt_tokens: 321, completion_tokens: 54 });
    const stored = (await json(await t.request(`/api/v1/runs/${run.run_id}`))).data;
    expect(stored.response).toBe(end.data.response);
    // The body asked for a stream (and, from OpenAI, the usage with it).
    expect(server.requests[0]!.body.stream).toBe(true);
    if (kind === 'openai') expect(server.requests[0]!.body.stream_options).toEqual({ include_usage: true });
  });

  it('runs a tool call assembled from streamed fragments', async () => {
    const server = await fake(kind);
    server.enqueue(
      { toolCalls: [{ id: 'call_frag', name: 'calculator', arguments: { expression: '(1234+4321)*2' } }], usage: { input: 10, output: 5 } },
      { text: 'It is 11110.', usage: { input: 20, output: 6 } },
    );
    const t = await appFor(kind, server);
    const run = await startRun(t, { message: 'compute it' });
    const events = await watch(t, run.run_id);
    const request = events.find((e) => e.event === 'tool.request') as Extract<RunEvent, { event: 'tool.request' }>;
    expect(request.data.arguments).toEqual({ expression: '(1234+4321)*2' });
    // The tool ran on the whole arguments: its result went back to the model.
    expect(JSON.stringify(server.requests[1]!.body.messages)).toContain('11110');
    expect(terminal(events).data).toMatchObject({ response: 'It is 11110.', cost: { prompt_tokens: 30, completion_tokens: 11 } });
    expect(deltas(events).join('')).toBe('It is 11110.');
  });

  it('coalesces a fast stream: 200 chunks become a few delta events', async () => {
    const server = await fake(kind);
    const text = Array.from({ length: 200 }, (_, i) => `w${String(i).padStart(5, '0')} `).join('');
    server.enqueue({ text, chunkDelayMs: 1 });
    const t = await appFor(kind, server);
    const run = await startRun(t, { message: 'long one' });
    const events = await watch(t, run.run_id);
    const pieces = deltas(events);
    expect(pieces.join('')).toBe(text);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.length).toBeLessThan(40);
  });
});

describe('include=deltas', () => {
  it('a viewer joining mid-answer gets run.text with the text so far, then the next pieces', async () => {
    const server = await fake('openai');
    const text = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    server.enqueue({ text, chunkDelayMs: 20 });
    const t = await appFor('openai', server);
    const run = await startRun(t, { message: 'slowly' });
    const early: Timed[] = [];
    const client = new AgentdClient({ baseUrl: t.url, apiKey: t.apiKey });
    const first = (async () => {
      for await (const event of client.runEvents(run.run_id, { includeDeltas: true })) early.push({ ...event, at: performance.now() });
    })();
    await eventually(() => deltas(early).length >= 2);
    // Resumes after run.start, mid-answer.
    const late = await watch(t, run.run_id, 1);
    await first;

    expect(late[0]!.event).toBe('run.text');
    const soFar = (late[0] as RunLiveEvent).data.text;
    expect(soFar.length).toBeGreaterThan(0);
    expect(text.startsWith(soFar)).toBe(true);
    expect(soFar + deltas(late).join('')).toBe(text);
    expect(late.at(-1)!.event).toBe('run.complete');
    // The first viewer got the whole answer in pieces and no run.text (it was there from the start).
    expect(deltas(early).join('')).toBe(text);
    expect(early.some((e) => e.event === 'run.text')).toBe(false);
  });

  it('without the parameter the stream has no live events; an unknown include is refused', async () => {
    const server = await fake('openai');
    server.enqueue({ text: 'A plain answer in several pieces.', chunkDelayMs: 5 });
    const t = await appFor('openai', server);
    const run = await startRun(t, { message: 'plain' });
    const { text, events } = await readEvents(t, run.run_id);
    expect(events.map((e) => e.event)).toEqual(['run.start', 'run.complete']);
    expect(text).not.toContain('run.delta');
    expect(text).not.toContain('run.text');

    const refused = await t.request(`/api/v1/runs/${run.run_id}/events?include=everything`);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ status: 'error', code: 'AGENTD_VALIDATION', error: 'include must be "deltas"' });
  });

  it('the offline provider\'s streamed answer reaches the viewer', async () => {
    const t = await startTestApp();
    cleanups.push(() => t.close());
    const run = await startRun(t, { message: 'hello there' });
    const events = await watch(t, run.run_id);
    // Its pieces come 1 ms apart, so the viewer gets them in one or two releases (the provider's own test counts them).
    expect(events.some((e) => e.event === 'run.delta' || e.event === 'run.text')).toBe(true);
    expect(shown(events)).toBe(terminal(events).data.response);
  });
});
