import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeLlmServer } from './fakes/fake-llm-server.js';
import { heldTool, parseSse, rawGet, readEvents, startAppWithFakeOpenAI, startRun, type RawStream } from './helpers/agent.js';
import type { TestApp } from './helpers/app.js';
import { rssAfterGcMb } from './helpers/memory.js';

/**
 * Large events and viewers that do not keep up, over real HTTP on a real port: a viewer that stops
 * reading is cut off once past its bound and holds no copy of a large event of its own, and the
 * service keeps answering while it hands a 16 MiB answer to many viewers.
 */
const MiB = 1024 * 1024;
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

/** The app with a fake OpenAI provider and a `hold` tool that stops the run until released. */
async function heldApp(): Promise<{ t: TestApp; server: FakeLlmServer; hold: ReturnType<typeof heldTool> }> {
  const { t, server, close } = await startAppWithFakeOpenAI();
  cleanups.push(close);
  const hold = heldTool('hold');
  t.app.tools.register(hold.tool);
  return { t, server, hold };
}

async function stream(t: TestApp, runId: string, headers: Record<string, string> = {}): Promise<RawStream> {
  const s = await rawGet(t.url, `/api/v1/runs/${runId}/events`, { authorization: `Bearer ${t.apiKey}`, ...headers });
  cleanups.push(() => s.destroy());
  return s;
}

describe('viewers that stop reading', () => {
  it('share one copy of a 16 MiB event, are cut off once past the bound, and resume with Last-Event-ID', async () => {
    const { t, server, hold } = await heldApp();
    // Events: 1 run.start, 2 tool.request carrying 16 MiB, 3 its tool.result, 4 tool.request of
    // `hold` (the run waits there), 5 its tool.result, 6 run.complete with a 2 MiB answer.
    const note = 'n'.repeat(16 * MiB);
    const answer = 'a'.repeat(2 * MiB);
    server.enqueue(
      { toolCalls: [{ name: 'calculator', arguments: { expression: '1+1', note } }, { name: 'hold', arguments: {} }] },
      { text: answer },
    );
    const run = await startRun(t, { message: 'go' });
    const reader = await stream(t, run.run_id);
    await hold.started;
    await reader.waitFor((body) => body.includes('id: 4\n'));

    // Forty viewers resume after event 1 and stop reading once the stream has opened: the replay
    // is written by then, its 16 MiB event more than the kernel's socket buffers take (a few MiB),
    // so the rest waits for each of them, as the one shared frame.
    const before = rssAfterGcMb();
    const stalled = await Promise.all(
      Array.from({ length: 40 }, async () => {
        const s = await stream(t, run.run_id, { 'last-event-id': '1' });
        expect(await s.status()).toBe(200);
        s.pause();
        return s;
      }),
    );
    // They all hold the same frame: a copy for each would be 40 × 16 MiB; three would pass this.
    expect(rssAfterGcMb() - before).toBeLessThan(48);

    // Events 5 and 6 (2 MiB) queue behind the unread one, past the 1 MiB bound: each stalled viewer
    // is disconnected at once, while the reader gets everything.
    hold.release();
    expect(parseSse(await reader.ended()).map((e) => e.id)).toEqual(['1', '2', '3', '4', '5', '6']);
    for (const s of stalled) s.resume();
    const cut = await Promise.all(stalled.map((s) => s.ended()));
    // Each got the head and the slices of event 2 its socket took, never its end (a client drops an
    // event cut off so), then the connection closed: a stream that ended would have gone on to
    // event 6 and its final chunk.
    for (const body of cut) expect(/^retry: 3000\n\n(id: 2\nevent: tool\.request\ndata: \{[^\n]*)?$/.test(body)).toBe(true);

    // Resuming after the last event it saw (1), a viewer gets the rest from the stored log.
    for (const s of stalled.slice(0, 3)) {
      s.destroy();
      const resumed = await readEvents(t, run.run_id, { 'last-event-id': '1' });
      expect(resumed.events.map((e) => `${e.id}:${e.event}`)).toEqual(['2:tool.request', '3:tool.result', '4:tool.request', '5:tool.result', '6:run.complete']);
      expect(JSON.parse(resumed.events[0]!.data).arguments.note).toHaveLength(16 * MiB);
      expect(JSON.parse(resumed.events[4]!.data).response).toBe(answer);
    }

    // Forty that resume and stop reading again: each replay reads its own copy of the log from the
    // store, and they still share one frame of each event.
    const beforeReplays = rssAfterGcMb();
    for (let i = 0; i < 40; i++) {
      const s = await stream(t, run.run_id, { 'last-event-id': '1' });
      expect(await s.status()).toBe(200);
      s.pause();
    }
    expect(rssAfterGcMb() - beforeReplays).toBeLessThan(48);
  });
});

/**
 * A viewer on a raw socket that reads until the frame of the run's answer (run.complete) begins,
 * notes it, and leaves: nobody reads the 16 MiB through.
 */
function answerWatcher(t: TestApp, runId: string, onAnswer: () => void): { ready: Promise<void>; answered: Promise<void> } {
  const url = new URL(t.url);
  const socket = connect(Number(url.port), url.hostname);
  cleanups.push(() => socket.destroy());
  socket.on('error', () => {});
  socket.write(`GET /api/v1/runs/${runId}/events HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${t.apiKey}\r\n\r\n`);
  let text = '';
  let markReady!: () => void;
  let markAnswered!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const answered = new Promise<void>((resolve) => (markAnswered = resolve));
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('latin1');
    if (text.includes('id: 2\n')) markReady();
    if (text.includes('event: run.complete')) {
      socket.destroy();
      onAnswer();
      markAnswered();
    }
  });
  return { ready, answered };
}

describe('fan-out of a 16 MiB answer', () => {
  it('answers other requests while it hands the answer to 100 viewers', async () => {
    const { t, server, hold } = await heldApp();
    server.enqueue({ toolCalls: [{ name: 'hold', arguments: {} }] }, { text: 'z'.repeat(16 * MiB) });
    const run = await startRun(t, { message: 'go' });
    await hold.started;

    const count = 100;
    let served = 0;
    let health: Promise<{ status: number; servedBefore: number }> | undefined;
    const watchers = Array.from({ length: count }, () =>
      answerWatcher(t, run.run_id, () => {
        served++;
        // As soon as the first viewer has the answer's first bytes, ask the service something else.
        health ??= t.request('/api/v1/health').then((response) => ({ status: response.status, servedBefore: served }));
      }),
    );
    await Promise.all(watchers.map((w) => w.ready));
    hold.release();
    await Promise.all(watchers.map((w) => w.answered));
    const { status, servedBefore } = await health!;
    expect(status).toBe(200);
    expect(served).toBe(count);
    // Handed over in one go, every viewer would have its bytes before the health request could
    // even be read; in slices (one viewer per turn for 16 MiB) it is answered a few turns in.
    expect(servedBefore).toBeLessThan(count / 2);
  });
});
