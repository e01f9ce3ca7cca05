import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Plumbing shared by the fake upstream LLM servers: a `node:http` server on 127.0.0.1 that records
 * every request, answers from a queue of planned replies, and can be slowed down. The wire formats
 * live in anthropic-server.ts and openai-server.ts.
 */
export interface PlannedToolCall {
  /** Defaults to a generated id in the vendor's style. */
  id?: string;
  name: string;
  arguments: Record<string, unknown>;
}

export type PlannedReply =
  | {
      text?: string;
      toolCalls?: PlannedToolCall[];
      /**
       * Token counts to report, or a function of the request that computes them (say, the most the
       * request allows); default: estimated from the request and reply sizes.
       */
      usage?: PlannedUsage | ((request: RecordedRequest) => PlannedUsage);
      /** Model name to report; default: the requested model. */
      model?: string;
      /** Wait this long before answering (on top of the server's delay). */
      delayMs?: number;
      /** Delay between this reply's streamed events, instead of the server's `chunkDelayMs`. */
      chunkDelayMs?: number;
    }
  | { error: { status: number; message: string; type?: string }; delayMs?: number };

export interface PlannedUsage {
  input: number;
  output: number;
}

/** The usage a planned reply reports for `request`, when it names one. */
export function plannedUsage(reply: { usage?: PlannedUsage | ((request: RecordedRequest) => PlannedUsage) }, request: RecordedRequest): PlannedUsage | undefined {
  return typeof reply.usage === 'function' ? reply.usage(request) : reply.usage;
}

export interface RecordedRequest {
  method: string;
  path: string;
  /** Lower-cased header names. */
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body, or null when absent or not JSON. */
  body: any;
  raw: string;
}

export interface FakeLlmServerOptions {
  /** Delay before every reply, in milliseconds (for slow-upstream tests). */
  delayMs?: number;
  /** Delay between streamed events, in milliseconds. */
  chunkDelayMs?: number;
  /** When set, requests must carry this key (x-api-key or Authorization: Bearer) or get a 401. */
  requireKey?: string;
}

export interface FakeLlmServer {
  /** Origin, e.g. http://127.0.0.1:41234 */
  url: string;
  /** What to configure as the provider's base_url. */
  baseUrl: string;
  port: number;
  host: string;
  requests: RecordedRequest[];
  enqueue(...replies: PlannedReply[]): void;
  /** Replies still waiting in the queue. */
  pending(): number;
  setDelay(ms: number): void;
  close(): Promise<void>;
}

export interface ReplyContext {
  request: RecordedRequest;
  reply: PlannedReply;
  res: ServerResponse;
  /** Resolves after `chunkDelayMs`, or at once; rejects never (stops early when the client left). */
  pause(): Promise<void>;
  /** Sequence number of this reply, for ids. */
  n: number;
}

export interface WireFormat {
  /** Path under the origin that base_url must include (`''` for Anthropic, `'/v1'` for OpenAI). */
  basePath: string;
  completionPath: string;
  /** Answers a planned reply in the vendor's format (JSON or SSE). */
  respond(ctx: ReplyContext): Promise<void>;
  /** Answers an error in the vendor's error format. */
  respondError(res: ServerResponse, status: number, message: string, type?: string): void;
  /** Used when the queue is empty. */
  defaultReply: PlannedReply;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function bearerOrKey(headers: IncomingMessage['headers']): string | undefined {
  const key = headers['x-api-key'];
  if (typeof key === 'string' && key) return key;
  const auth = headers.authorization;
  return typeof auth === 'string' && auth.startsWith('Bearer ') ? auth.slice(7) : undefined;
}

export async function startFakeLlmServer(format: WireFormat, options: FakeLlmServerOptions = {}): Promise<FakeLlmServer> {
  const queue: PlannedReply[] = [];
  const requests: RecordedRequest[] = [];
  let delayMs = options.delayMs ?? 0;
  let counter = 0;
  const timers = new Set<NodeJS.Timeout>();

  const sleep = (ms: number, res: ServerResponse) =>
    new Promise<void>((resolve) => {
      if (ms <= 0 || res.destroyed) return resolve();
      const done = () => {
        clearTimeout(timer);
        timers.delete(timer);
        res.off('close', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      timers.add(timer);
      res.once('close', done);
    });

  const server = createServer(async (req, res) => {
    const raw = await readBody(req);
    let body: unknown = null;
    try {
      body = raw ? JSON.parse(raw) : null;
    } catch {
      body = null;
    }
    const path = (req.url ?? '/').split('?')[0]!;
    const request: RecordedRequest = { method: req.method ?? 'GET', path, headers: { ...req.headers }, body, raw };
    requests.push(request);

    if (options.requireKey !== undefined && bearerOrKey(req.headers) !== options.requireKey) {
      return format.respondError(res, 401, 'invalid api key', 'authentication_error');
    }
    if (req.method === 'GET' && path === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ object: 'list', data: [{ id: 'fake-model', object: 'model', type: 'model' }] }));
    }
    if (req.method !== 'POST' || path !== format.completionPath) {
      return format.respondError(res, 404, `no route ${req.method} ${path}`, 'not_found_error');
    }
    if (body === null || typeof body !== 'object') {
      return format.respondError(res, 400, 'body must be a JSON object', 'invalid_request_error');
    }
    const reply = queue.shift() ?? format.defaultReply;
    await sleep(delayMs + (reply.delayMs ?? 0), res);
    if (res.destroyed) return;
    if ('error' in reply) return format.respondError(res, reply.error.status, reply.error.message, reply.error.type);
    counter++;
    const chunkDelayMs = reply.chunkDelayMs ?? options.chunkDelayMs ?? 0;
    await format.respond({ request, reply, res, n: counter, pause: () => sleep(chunkDelayMs, res) });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    baseUrl: `${url}${format.basePath}`,
    port,
    host: `127.0.0.1:${port}`,
    requests,
    enqueue: (...replies) => void queue.push(...replies),
    pending: () => queue.length,
    setDelay: (ms) => void (delayMs = ms),
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** `startFakeAnthropic`-style starter for one wire format. */
export function fakeServerStarter(format: WireFormat): (options?: FakeLlmServerOptions) => Promise<FakeLlmServer> {
  return (options = {}) => startFakeLlmServer(format, options);
}

/** A JSON error body with a fresh request id in the vendor's request-id header. */
export function sendJsonError(res: ServerResponse, status: number, requestIdHeader: string, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', [requestIdHeader]: `req_fake_${Date.now()}` });
  res.end(JSON.stringify(body));
}

/** About four characters per token, like the offline provider: good enough for a fake's usage. */
export const roughTokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

/** Most pieces one text is streamed in: a text of many MiB goes in larger pieces, not in millions. */
const MAX_PIECES = 256;

/** Splits text into a few pieces so a stream has more than one delta. */
export function chunks(text: string, smallest = 8): string[] {
  const size = Math.max(smallest, Math.ceil(text.length / MAX_PIECES));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length ? out : [''];
}
