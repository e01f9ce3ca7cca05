import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the fake answered, as Discord would have received it. */
export interface DiscordRestRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: Record<string, unknown> | null;
  at: number;
  status: number;
}

/** A message the fake created (`POST /channels/{id}/messages`). */
export interface CreatedMessage {
  id: string;
  channel_id: string;
  content: string;
  /** The message it replies to (`message_reference.message_id`), if any. */
  replyTo: string | null;
  allowed_mentions: unknown;
  at: number;
}

export interface FakeDiscordRest {
  /** `http://127.0.0.1:<port>/api/v10`: configure it as `discord.api_base_url`. */
  baseUrl: string;
  /** `127.0.0.1:<port>`, for `network.allowed_hosts`. */
  host: string;
  requests: DiscordRestRequest[];
  messages: CreatedMessage[];
  /** The next `count` requests to the route (`messages`, `typing`) are answered 429 with `retry_after` seconds; `global` marks the global limit. */
  rateLimit(route: 'messages' | 'typing', count: number, retryAfterSeconds: number, global?: boolean): void;
  /** The next `count` message creations are answered with `status` (a 5xx is retried by clients, a 4xx is not). */
  failMessages(count: number, status: number): void;
  /** Resolves once `count` messages were created (rejects after `timeoutMs`). */
  waitForMessages(count: number, timeoutMs?: number): Promise<CreatedMessage[]>;
  close(): Promise<void>;
}

export interface FakeDiscordRestOptions {
  /** The bot token the fake accepts (`Authorization: Bot <token>`); anything else is answered 401. */
  token: string;
  /** What `GET /gateway/bot` answers as the Gateway address. */
  gatewayUrl?: string;
}

/**
 * A fake Discord REST API on 127.0.0.1 speaking the real wire format for what agentd uses:
 * `GET /gateway/bot`, `POST /channels/{id}/typing` (204), `POST /channels/{id}/messages` (the
 * created message), each with X-RateLimit-* headers, a 429 with `retry_after` (and the
 * `X-RateLimit-Global` / `X-RateLimit-Scope` headers) when told to, and 401 for a wrong token.
 */
export async function startFakeDiscordRest(options: FakeDiscordRestOptions): Promise<FakeDiscordRest> {
  const requests: DiscordRestRequest[] = [];
  const messages: CreatedMessage[] = [];
  const limited = new Map<string, { count: number; retryAfter: number; global: boolean }>();
  let failures: { count: number; status: number } | null = null;
  const waiters: { count: number; resolve: (m: CreatedMessage[]) => void }[] = [];
  let nextId = 1_300_000_000_000_000_000n;

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    const text = body === null ? '' : JSON.stringify(body);
    res.writeHead(status, { ...(body === null ? {} : { 'content-type': 'application/json' }), ...headers });
    res.end(text);
  };
  const bucketHeaders = (bucket: string, remaining: number): Record<string, string> => ({
    'x-ratelimit-limit': '5', 'x-ratelimit-remaining': String(remaining), 'x-ratelimit-reset': String(Date.now() / 1000 + 1),
    'x-ratelimit-reset-after': '1', 'x-ratelimit-bucket': bucket,
  });

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const body = raw === '' ? null : (JSON.parse(raw) as Record<string, unknown>);
    const path = new URL(req.url ?? '/', 'http://fake').pathname.replace(/^\/api\/v10/, '');
    const record = (status: number) => requests.push({ method: req.method ?? '', path, authorization: req.headers.authorization, body, at: Date.now(), status });
    if (req.headers.authorization !== `Bot ${options.token}`) {
      record(401);
      return send(res, 401, { message: '401: Unauthorized', code: 0 });
    }
    if (req.method === 'GET' && path === '/gateway/bot') {
      record(200);
      return send(res, 200, {
        url: options.gatewayUrl ?? 'wss://gateway.invalid', shards: 1,
        session_start_limit: { total: 1000, remaining: 999, reset_after: 86_400_000, max_concurrency: 1 },
      });
    }
    const route = /^\/channels\/(\d+)\/(typing|messages)$/.exec(path);
    if (req.method !== 'POST' || !route) {
      record(404);
      return send(res, 404, { message: '404: Not Found', code: 0 });
    }
    const [, channelId, kind] = route as unknown as [string, string, 'typing' | 'messages'];
    const limit = limited.get(kind);
    if (limit && limit.count > 0) {
      limit.count--;
      record(429);
      const scope: Record<string, string> = limit.global
        ? { 'x-ratelimit-global': 'true', 'x-ratelimit-scope': 'global' }
        : { ...bucketHeaders(`bucket-${kind}`, 0), 'x-ratelimit-reset-after': String(limit.retryAfter), 'x-ratelimit-scope': 'user' };
      return send(res, 429, { message: 'You are being rate limited.', retry_after: limit.retryAfter, global: limit.global }, { 'retry-after': String(limit.retryAfter), ...scope });
    }
    if (kind === 'typing') {
      record(204);
      return send(res, 204, null, bucketHeaders('bucket-typing', 4));
    }
    if (failures && failures.count > 0) {
      failures.count--;
      record(failures.status);
      return send(res, failures.status, { message: failures.status >= 500 ? 'Internal Server Error' : 'Missing Permissions', code: failures.status >= 500 ? 0 : 50013 });
    }
    const reference = body?.message_reference as { message_id?: string } | undefined;
    const created: CreatedMessage = {
      id: String(nextId++), channel_id: channelId, content: String(body?.content ?? ''), replyTo: reference?.message_id ?? null,
      allowed_mentions: body?.allowed_mentions, at: Date.now(),
    };
    messages.push(created);
    record(200);
    send(res, 200, { id: created.id, channel_id: channelId, content: created.content, author: { id: '900', bot: true, username: 'agentd' }, type: reference ? 19 : 0 }, bucketHeaders('bucket-messages', 4));
    for (const waiter of [...waiters]) {
      if (messages.length >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve([...messages]);
      }
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => send(res, 400, { message: 'bad request', code: 50109 }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/api/v10`,
    host: `127.0.0.1:${port}`,
    requests,
    messages,
    rateLimit(route, count, retryAfterSeconds, global = false) {
      limited.set(route, { count, retryAfter: retryAfterSeconds, global });
    },
    failMessages(count, status) {
      failures = { count, status };
    },
    waitForMessages(count, timeoutMs = 15_000) {
      if (messages.length >= count) return Promise.resolve([...messages]);
      return new Promise((resolve, reject) => {
        const waiter = { count, resolve };
        waiters.push(waiter);
        setTimeout(() => reject(new Error(`only ${messages.length} of ${count} messages created`)), timeoutMs).unref();
      });
    },
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
