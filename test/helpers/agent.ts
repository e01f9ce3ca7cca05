import type { ToolDefinition } from '../../src/tools/types.js';
import type { FakeLlmServer } from '../fakes/fake-llm-server.js';
import { startFakeOpenAI } from '../fakes/openai-server.js';
import { startTestApp, type TestApp, type TestAppOptions } from './app.js';

/** Helpers shared by the agent, runs and SSE integration tests. */

/** The real app whose default provider is a fake OpenAI server; `close` stops both. */
export async function startAppWithFakeOpenAI(options: TestAppOptions = {}): Promise<{ t: TestApp; server: FakeLlmServer; close(): Promise<void> }> {
  const server = await startFakeOpenAI();
  try {
    const t = await startTestApp({
      ...options,
      env: { OPENAI_API_KEY: 'sk-test-openai-key-000000000000' },
      config: {
        ...options.config,
        providers: { default: 'openai', openai: { api_key_env: 'OPENAI_API_KEY', model: 'gpt-4.1-mini', base_url: server.baseUrl } },
        network: { allowed_hosts: [server.host] },
      },
    });
    return { t, server, close: async () => { await t.close(); await server.close(); } };
  } catch (err) {
    await server.close();
    throw err;
  }
}

/**
 * A tool that holds the run until the test releases it (it ignores the abort signal too): a run
 * can be stopped at a known point, with everything before it committed.
 */
export function heldTool(name = 'stubborn'): { tool: ToolDefinition; started: Promise<void>; release(): void } {
  let release!: () => void;
  let markStarted!: () => void;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  return {
    started,
    release,
    tool: {
      name,
      description: 'finishes its work whatever happens',
      schema: { type: 'object', properties: {} },
      run: async () => {
        markStarted();
        await released;
        return 'done anyway';
      },
    },
  };
}

export interface SseEvent {
  id: string | undefined;
  event: string | undefined;
  data: string;
}

export async function postJson(t: TestApp, path: string, body: unknown): Promise<Response> {
  return t.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

export async function json<T = any>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

/** Starts a run and returns its 202 record. */
export async function startRun(t: TestApp, body: Record<string, unknown>): Promise<any> {
  const response = await postJson(t, '/api/v1/runs', body);
  if (response.status !== 202) throw new Error(`POST /runs answered ${response.status}: ${await response.text()}`);
  return (await json(response)).data;
}

/** Reads the run's event stream to its end (a finished or finishing run closes it). */
export async function readEvents(t: TestApp, runId: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string; events: SseEvent[] }> {
  const response = await t.request(`/api/v1/runs/${runId}/events`, { headers });
  const text = await response.text();
  return { status: response.status, text, events: parseSse(text) };
}

/** Waits for the run's terminal event through the stream, then returns the stored record. */
export async function finishedRun(t: TestApp, runId: string): Promise<any> {
  await readEvents(t, runId);
  return (await json(await t.request(`/api/v1/runs/${runId}`))).data;
}

/** Parses an SSE body into events (comments and the retry line are skipped). */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split('\n\n')) {
    const fields: Record<string, string> = {};
    for (const line of block.split('\n')) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const name = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      fields[name] = fields[name] === undefined ? value : `${fields[name]}\n${value}`;
    }
    if (fields.data !== undefined) events.push({ id: fields.id, event: fields.event, data: fields.data });
  }
  return events;
}

/** Polls `check` until it returns a value (not undefined/false), at most `timeoutMs`. */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 10_000): Promise<Exclude<T, undefined | false>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value as Exclude<T, undefined | false>;
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * An HTTP/1.1 GET over a raw `node:net` socket, for byte-exact checks of an event stream: the head
 * as sent, and the body with chunked transfer decoding undone.
 */
export interface RawStream {
  status(): Promise<number>;
  head(): Promise<string>;
  /** The decoded body so far. */
  body(): string;
  /** Resolves when the decoded body satisfies `predicate`. */
  waitFor(predicate: (body: string) => boolean): Promise<string>;
  /** Resolves with the whole body when the server ends the response. */
  ended(): Promise<string>;
  /** Stop reading from the socket (a slow client). */
  pause(): void;
  resume(): void;
  destroy(): void;
}

export async function rawGet(baseUrl: string, path: string, headers: Record<string, string>): Promise<RawStream> {
  const { connect } = await import('node:net');
  const url = new URL(baseUrl);
  const socket = connect(Number(url.port), url.hostname);
  const lines = [`GET ${path} HTTP/1.1`, `Host: ${url.host}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), '', ''];
  socket.write(lines.join('\r\n'));
  let raw = Buffer.alloc(0);
  // Data not yet joined to `raw`: a chunk of many MiB arrives in pieces, joined once it is whole.
  let pieces: Buffer[] = [];
  let received = 0;
  let needed = 0;
  let headText: string | null = null;
  let body = '';
  let finished = false;
  const waiters = new Set<() => void>();
  const notify = () => waiters.forEach((w) => w());
  /** Decodes what it can; returns how many bytes `raw` must hold before it can go on. */
  const decode = (): number => {
    if (headText === null) {
      const end = raw.indexOf('\r\n\r\n');
      if (end === -1) return raw.length + 1;
      headText = raw.subarray(0, end).toString('latin1');
      raw = raw.subarray(end + 4);
    }
    if (!/transfer-encoding: chunked/i.test(headText)) {
      body += raw.toString('utf8');
      raw = Buffer.alloc(0);
      return 1;
    }
    for (;;) {
      const lineEnd = raw.indexOf('\r\n');
      if (lineEnd === -1) return raw.length + 1;
      const size = Number.parseInt(raw.subarray(0, lineEnd).toString('latin1'), 16);
      if (raw.length < lineEnd + 2 + size + 2) return lineEnd + 2 + size + 2;
      if (size === 0) finished = true;
      body += raw.subarray(lineEnd + 2, lineEnd + 2 + size).toString('utf8');
      raw = raw.subarray(lineEnd + 2 + size + 2);
    }
  };
  socket.on('data', (chunk: Buffer) => {
    pieces.push(chunk);
    received += chunk.length;
    if (raw.length + received < needed) return;
    raw = Buffer.concat([raw, ...pieces]);
    pieces = [];
    received = 0;
    needed = decode();
    notify();
  });
  socket.on('close', () => {
    finished = true;
    notify();
  });
  socket.on('error', () => {});
  const until = (check: () => boolean) =>
    new Promise<void>((resolve, reject) => {
      const waiter = () => {
        if (check()) {
          waiters.delete(waiter);
          resolve();
        } else if (finished) {
          waiters.delete(waiter);
          reject(new Error(`stream ended first; body so far:\n${body}`));
        }
      };
      waiters.add(waiter);
      waiter();
    });
  const head = async () => {
    await until(() => headText !== null);
    return headText!;
  };
  return {
    head,
    status: async () => Number(/^HTTP\/1\.1 (\d{3})/.exec(await head())![1]),
    body: () => body,
    waitFor: async (predicate) => {
      await until(() => predicate(body));
      return body;
    },
    ended: async () => {
      await new Promise<void>((resolve) => {
        const waiter = () => finished && (waiters.delete(waiter), resolve());
        waiters.add(waiter);
        waiter();
      });
      return body;
    },
    pause: () => socket.pause(),
    resume: () => socket.resume(),
    destroy: () => socket.destroy(),
  };
}
