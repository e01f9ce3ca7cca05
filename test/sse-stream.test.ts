import { connect } from 'node:net';
import { EventSource } from 'eventsource';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeLlmServer } from './fakes/fake-llm-server.js';
import { finishedRun, json, parseSse, postJson, rawGet, readEvents, startAppWithFakeOpenAI, startRun, type RawStream } from './helpers/agent.js';
import { startTestApp, type TestApp } from './helpers/app.js';

/**
 * The run event stream over real HTTP: byte-exact framing on raw sockets, and the `eventsource`
 * package as the client a browser's EventSource stands for.
 */
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

/** An app whose default provider is a fake OpenAI server; the second reply waits `delayMs`. */
async function slowApp(delayMs: number, options: Parameters<typeof startTestApp>[0] = {}): Promise<{ t: TestApp; server: FakeLlmServer }> {
  const { t, server, close } = await startAppWithFakeOpenAI(options);
  cleanups.push(close);
  const plan = () =>
    server.enqueue(
      { toolCalls: [{ id: 'call_1', name: 'calculator', arguments: { expression: '2+3' } }] },
      { text: 'It is 5.', delayMs },
    );
  plan();
  (server as FakeLlmServer & { plan(): void }).plan = plan;
  return { t, server };
}

async function offlineApp(options: Parameters<typeof startTestApp>[0] = {}): Promise<TestApp> {
  const t = await startTestApp(options);
  cleanups.push(() => t.close());
  return t;
}

function raw(t: TestApp, path: string, headers: Record<string, string> = {}): Promise<RawStream> {
  return rawGet(t.url, path, { authorization: `Bearer ${t.apiKey}`, ...headers }).then((stream) => {
    cleanups.push(() => stream.destroy());
    return stream;
  });
}

function eventSource(t: TestApp, path: string, statuses: number[] = []): EventSource {
  const source = new EventSource(`${t.url}${path}`, {
    fetch: async (input, init) => {
      const response = await fetch(input, { ...init, headers: { ...init?.headers, authorization: `Bearer ${t.apiKey}` } });
      statuses.push(response.status);
      return response;
    },
  });
  cleanups.push(() => source.close());
  return source;
}

const NAMES = ['run.start', 'tool.request', 'tool.result', 'run.complete', 'run.error', 'run.cancelled'];

/** Collects every named event of an EventSource until a terminal one arrives. */
function collect(source: EventSource): Promise<{ id: string; event: string; data: any }[]> {
  const seen: { id: string; event: string; data: any }[] = [];
  return new Promise((resolve) => {
    for (const name of NAMES) {
      source.addEventListener(name, (event) => {
        seen.push({ id: event.lastEventId, event: name, data: JSON.parse(event.data) });
        if (name.startsWith('run.') && name !== 'run.start') resolve(seen);
      });
    }
  });
}

describe('framing', () => {
  it('sends the head, retry: 3000, then id/event/data frames with ids 1, 2, 3 … and closes a finished run', async () => {
    const t = await offlineApp();
    const run = await startRun(t, { message: 'what is 17*23?' });
    await finishedRun(t, run.run_id);
    const stream = await raw(t, `/api/v1/runs/${run.run_id}/events`);
    expect(await stream.status()).toBe(200);
    const head = (await stream.head()).toLowerCase();
    for (const line of [
      'content-type: text/event-stream; charset=utf-8', 'connection: keep-alive', 'x-accel-buffering: no',
      'x-content-type-options: nosniff', 'x-frame-options: deny', 'cache-control: no-store',
    ]) {
      expect(head).toContain(line);
    }
    const body = await stream.ended();
    expect(body.startsWith('retry: 3000\n\n')).toBe(true);
    const frames = body.slice('retry: 3000\n\n'.length).split('\n\n').filter(Boolean);
    expect(frames).toHaveLength(4);
    frames.forEach((frame, i) => {
      const lines = frame.split('\n');
      expect(lines).toHaveLength(3);
      expect(lines[0]).toBe(`id: ${i + 1}`);
      expect(lines[1]).toBe(`event: ${['run.start', 'tool.request', 'tool.result', 'run.complete'][i]}`);
      expect(lines[2]!.startsWith('data: {')).toBe(true);
      JSON.parse(lines[2]!.slice(6));
    });
    expect(JSON.parse(frames[0]!.split('\n')[2]!.slice(6))).toEqual({ run_id: run.run_id, session_id: run.session_id, provider: 'offline' });
    expect(JSON.parse(frames[3]!.split('\n')[2]!.slice(6))).toMatchObject({
      run_id: run.run_id, response: expect.stringContaining('391'), resolved_provider: 'offline', tools_used: ['calculator'],
      cost: { prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number), cost_usd: 0 },
    });
  });

  it('answers 404 for an unknown run, 400 for a bad Last-Event-ID, 401 without a key', async () => {
    const t = await offlineApp();
    const missing = await t.request('/api/v1/runs/run_nope/events');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-content-type-options')).toBe('nosniff');
    const run = await startRun(t, { message: 'hi' });
    expect((await t.request(`/api/v1/runs/${run.run_id}/events`, { headers: { 'last-event-id': 'abc' } })).status).toBe(400);
    expect((await t.request(`/api/v1/runs/${run.run_id}/events?last_event_id=-1`)).status).toBe(400);
    expect((await fetch(`${t.url}/api/v1/runs/${run.run_id}/events`)).status).toBe(401);
  });

  it('redacts secrets in tool arguments', async () => {
    const t = await offlineApp();
    const secret = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789AB';
    const run = await startRun(t, { message: `search memory for ${secret}` });
    const { text, events } = await readEvents(t, run.run_id);
    expect(events[1]!.event).toBe('tool.request');
    expect(JSON.parse(events[1]!.data).arguments.query).toContain('[REDACTED]');
    expect(text).not.toContain(secret);
  });
});

describe('live runs', () => {
  it('gives every event to each of two EventSource viewers, in order, then stops on 204', async () => {
    const { t } = await slowApp(300);
    const run = await startRun(t, { message: 'add two and three' });
    const statuses: number[] = [];
    const a = eventSource(t, `/api/v1/runs/${run.run_id}/events`, statuses);
    const b = eventSource(t, `/api/v1/runs/${run.run_id}/events`);
    const [seenA, seenB] = await Promise.all([collect(a), collect(b)]);
    for (const seen of [seenA, seenB]) {
      expect(seen.map((e) => e.event)).toEqual(['run.start', 'tool.request', 'tool.result', 'run.complete']);
      expect(seen.map((e) => e.id)).toEqual(['1', '2', '3', '4']);
      expect(seen[3]!.data).toMatchObject({ response: 'It is 5.', resolved_provider: 'openai', tools_used: ['calculator'] });
    }
    // The server closed the stream after the terminal event; EventSource reconnects with
    // Last-Event-ID 4 after the retry delay, gets 204 and stops for good.
    await new Promise<void>((resolve) => {
      a.addEventListener('error', () => a.readyState === EventSource.CLOSED && resolve());
    });
    expect(statuses).toEqual([200, 204]);
  });

  it('resumes after Last-Event-ID while the run is in flight (header and query parameter)', async () => {
    const { t } = await slowApp(1000);
    const run = await startRun(t, { message: 'add two and three' });
    const first = await raw(t, `/api/v1/runs/${run.run_id}/events`);
    await first.waitFor((body) => body.includes('event: tool.result'));
    first.destroy();
    expect((await json(await t.request(`/api/v1/runs/${run.run_id}`))).data.status).toBe('running');

    const resumed = await raw(t, `/api/v1/runs/${run.run_id}/events`, { 'last-event-id': '2' });
    const viaQuery = await raw(t, `/api/v1/runs/${run.run_id}/events?last_event_id=3`);
    const [resumedBody, queryBody] = await Promise.all([resumed.ended(), viaQuery.ended()]);
    expect(parseSse(resumedBody).map((e) => [e.id, e.event])).toEqual([['3', 'tool.result'], ['4', 'run.complete']]);
    expect(parseSse(queryBody).map((e) => [e.id, e.event])).toEqual([['4', 'run.complete']]);
    expect(resumedBody.startsWith('retry: 3000\n\n')).toBe(true);
  });

  it('replays the whole log to a late viewer of a finished run, and 204s after the terminal id', async () => {
    const t = await offlineApp();
    const run = await startRun(t, { message: 'what time is it in Tokyo?' });
    await finishedRun(t, run.run_id);
    const late = await readEvents(t, run.run_id);
    expect(late.status).toBe(200);
    expect(late.events.map((e) => e.id)).toEqual(['1', '2', '3', '4']);
    const partial = await readEvents(t, run.run_id, { 'last-event-id': '3' });
    expect(partial.events.map((e) => e.event)).toEqual(['run.complete']);
    const done = await t.request(`/api/v1/runs/${run.run_id}/events`, { headers: { 'last-event-id': '4' } });
    expect(done.status).toBe(204);
    expect(done.headers.get('x-frame-options')).toBe('DENY');
    expect(await done.text()).toBe('');
  });

  it('sends : ping comments on an idle stream', async () => {
    const { t } = await slowApp(1500, { ssePingIntervalMs: 20 });
    const run = await startRun(t, { message: 'add' });
    const stream = await raw(t, `/api/v1/runs/${run.run_id}/events`);
    const body = await stream.waitFor((text) => text.includes(': ping\n\n'));
    expect(body.startsWith('retry: 3000\n\n')).toBe(true);
    await t.request(`/api/v1/runs/${run.run_id}/cancel`, { method: 'POST' });
    expect(parseSse(await stream.ended()).at(-1)!.event).toBe('run.cancelled');
  });

  it('keeps the run and other viewers going when a viewer disconnects', async () => {
    const { t } = await slowApp(400);
    const run = await startRun(t, { message: 'add' });
    const leaving = await raw(t, `/api/v1/runs/${run.run_id}/events`);
    const staying = await raw(t, `/api/v1/runs/${run.run_id}/events`);
    await leaving.waitFor((body) => body.includes('event: run.start'));
    leaving.destroy();
    const body = await staying.ended();
    expect(parseSse(body).map((e) => e.event)).toEqual(['run.start', 'tool.request', 'tool.result', 'run.complete']);
  });
});

describe('Connection: close', () => {
  /** GET the run's events on a socket of its own, asking to close it; resolves once the server closed it. */
  function closingStream(t: TestApp, runId: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const url = new URL(t.url);
      const socket = connect(Number(url.port), url.hostname);
      cleanups.push(() => socket.destroy());
      let data = '';
      socket.on('data', (chunk) => (data += chunk.toString('latin1')));
      socket.on('close', () => resolve(data));
      socket.on('error', reject);
      socket.write(`GET /api/v1/runs/${runId}/events HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${t.apiKey}\r\nConnection: close\r\n\r\n`);
    });
  }

  // A stream answered `Connection: keep-alive` whatever the client asked, so a client that reads
  // to the end of the connection waited for the idle timeout after the run had ended.
  it('answers Connection: close and closes the socket after the terminal event, for a live and a finished run', async () => {
    const { t } = await slowApp(300);
    const live = await startRun(t, { message: 'add' });
    const liveData = await closingStream(t, live.run_id);
    const finishedData = await closingStream(t, live.run_id);
    for (const data of [liveData, finishedData]) {
      const head = data.slice(0, data.indexOf('\r\n\r\n')).toLowerCase();
      expect(head).toContain('connection: close');
      expect(head).not.toContain('keep-alive');
      expect(data).toContain('event: run.complete');
      expect(data.endsWith('0\r\n\r\n')).toBe(true);
    }
  });
});

describe('cancel', () => {
  it('ends a run in flight as cancelled with a terminal run.cancelled event; 409 afterwards', async () => {
    const { t, server } = await slowApp(5000);
    const run = await startRun(t, { message: 'add' });
    const stream = await raw(t, `/api/v1/runs/${run.run_id}/events`);
    await stream.waitFor((body) => body.includes('event: tool.result'));

    const cancelled = await t.request(`/api/v1/runs/${run.run_id}/cancel`, { method: 'POST' });
    expect(cancelled.status).toBe(202);
    expect((await json(cancelled)).data).toMatchObject({ run_id: run.run_id, status: 'cancelled', finished_at: expect.any(String) });
    const events = parseSse(await stream.ended());
    expect(events.map((e) => e.event)).toEqual(['run.start', 'tool.request', 'tool.result', 'run.cancelled']);
    // Like every terminal event, run.cancelled carries the summary of what the run did and spent.
    const toolName = (JSON.parse(events[1]!.data) as { tool: string }).tool;
    expect(JSON.parse(events[3]!.data)).toMatchObject({
      run_id: run.run_id, resolved_provider: run.resolved_provider, tools_used: [toolName],
      cost: { prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number), cost_usd: expect.any(Number) },
    });

    const again = await t.request(`/api/v1/runs/${run.run_id}/cancel`, { method: 'POST' });
    expect(again.status).toBe(409);
    expect((await json(again)).error).toMatch(/already finished \(cancelled\)/);
    expect((await t.request('/api/v1/runs/run_nope/cancel', { method: 'POST' })).status).toBe(404);
    expect((await json(await t.request(`/api/v1/runs/${run.run_id}`))).data.status).toBe('cancelled');
    // The session is free again at once.
    const next = await postJson(t, '/api/v1/runs', { message: 'again', session_id: run.session_id });
    expect(next.status).toBe(202);
    // The new run reaches the provider (its call is made after the 202, so it is waited for).
    await expect.poll(() => server.requests.some((r) => JSON.stringify(r).includes('again'))).toBe(true);
  });
});
