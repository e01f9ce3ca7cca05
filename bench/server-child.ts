import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { createApp } from '../src/app.js';
import { createMemoryLogger } from '../src/log.js';
import { Database } from '../src/storage/sqlite/database.js';
import { homeFile } from '../src/config/home-layout.js';
import { newId, newTimeOrderedId } from '../src/security/ids/tokens.js';
import type { AuditEvent } from '../src/storage/ports/audit.js';
import { eventHash, GENESIS_HASH } from '../src/storage/ports/audit-chain.js';
import { pickWebhookHeaders } from '../src/channels/webhook/request-headers.js';
import { SECURITY_HEADERS } from '../src/listener/headers.js';
import { freshRequestId, REQUEST_ID_HEADER } from '../src/http/request-id.js';

/**
 * Child-process entry of bench servers: `bare` (node:http baseline), `bare-webhook` and
 * `bare-durable` (the webhook baselines), `bare-sse` (the streaming baseline), `bare-same-answer` (the
 * health check's floor) or `agentd` (the real app).
 */
const [kind = 'bare', rawArgs = '{}'] = process.argv.slice(2);
const args = JSON.parse(rawArgs) as Record<string, unknown>;
const API_KEY = 'bench-key-0123456789abcdef';

/**
 * The longest the event loop was blocked since the parent last asked: the longest gap between the
 * ticks of a 2 ms timer, in wall time, and the most CPU time the process used within one gap. On a
 * machine other processes share, a wall gap can be time this one was not scheduled at all; the
 * CPU figure is the work it did itself.
 */
const TICK_MS = 2;
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
let last = { wall: performance.now(), cpu: cpuMs() };
let longest = { wallMs: 0, cpuMs: 0 };
setInterval(() => {
  const now = { wall: performance.now(), cpu: cpuMs() };
  longest = { wallMs: Math.max(longest.wallMs, now.wall - last.wall - TICK_MS), cpuMs: Math.max(longest.cpuMs, now.cpu - last.cpu) };
  last = now;
}, TICK_MS).unref();

/** Event-loop delay between soak samples (percentiles of a 10 ms resolution timer's lateness). */
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();

process.on('message', (message: { type?: string }) => {
  if (message?.type === 'sample') {
    const lag = { p99Ms: loopDelay.percentile(99) / 1e6, maxMs: loopDelay.max / 1e6 };
    loopDelay.reset();
    // Live memory, not garbage: a leak shows as growth that survives a full collection.
    (globalThis as { gc?: () => void }).gc?.();
    const memory = process.memoryUsage();
    process.send?.({
      rss: memory.rss, heapUsed: memory.heapUsed, external: memory.external, arrayBuffers: memory.arrayBuffers,
      handles: process.getActiveResourcesInfo().length, lag, walBytes: walBytes(),
    });
    return;
  }
  if (message?.type === 'loop') {
    process.send?.(longest);
    longest = { wallMs: 0, cpuMs: 0 };
    return;
  }
  if (message?.type !== 'probe') return;
  // Memory probes: a full collection first, so the figure is live memory, not garbage.
  (globalThis as { gc?: () => void }).gc?.();
  const cpu = process.cpuUsage();
  process.send?.({ rss: process.memoryUsage().rss, cpuMicros: cpu.user + cpu.system });
});

/** The agentd server's database file (its home is made in main), for the soak's WAL size. */
let databaseFile: string | undefined;
const walBytes = (): number => {
  try {
    return databaseFile === undefined ? 0 : statSync(`${databaseFile}-wal`).size;
  } catch {
    return 0; // no log (yet)
  }
};

async function main(): Promise<void> {
  if (kind === 'bare') {
    const body = JSON.stringify({ status: 'ok', data: { status: 'healthy', version: '0.0.0' } });
    const answer = (res: import('node:http').ServerResponse) => {
      res.writeHead(Number(args.status ?? 200), { 'content-type': 'application/json' });
      res.end(body);
    };
    const server = createServer((req, res) => {
      if (req.method === 'GET' || req.method === 'HEAD') return answer(res);
      // A request with a body is read to its end first, as any real handler would.
      req.resume();
      req.on('end', () => answer(res));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    process.send?.({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: '' });
    process.on('SIGTERM', () => server.close(() => process.exit(0)));
    return;
  }
  if (kind === 'bare-durable') return serveBareDurable();
  if (kind === 'bare-webhook') return serveBareWebhook();
  if (kind === 'bare-sse') return serveBareSse();
  if (kind === 'bare-same-answer') return serveSameAnswer(String(args.body ?? ''));
  const home = mkdtempSync(join(tmpdir(), 'agentd-bench-'));
  databaseFile = homeFile(home, 'database');
  const app = await createApp({
    home,
    env: (args.env as NodeJS.ProcessEnv | undefined) ?? {},
    log: createMemoryLogger(),
    config: { api: { api_key: API_KEY, port: 0, rate_limit_rpm: 1_000_000_000 }, ...(args.config as object) },
    // Replicas of one benchmark share a prefix; other users of the same Redis keep theirs.
    ...(typeof args.redisKeyPrefix === 'string' ? { redisKeyPrefix: args.redisKeyPrefix } : {}),
  });
  const url = await app.listen();
  process.send?.({ url, apiKey: API_KEY, webhookUrl: app.webhook?.url });
  process.on('SIGTERM', () => {
    void app.close().finally(() => {
      rmSync(home, { recursive: true, force: true });
      process.exit(0);
    });
  });
}

/**
 * The durable baseline: the same rows agentd stores for an accepted webhook message (the message
 * in `channel_inbox` with its real sender, the request headers kept for its answer, a time-ordered
 * run id and its claim when the sender had nothing waiting; its `webhook.accept` event in
 * `audit_events` with the same detail, linked into the hash chain, with its counts; the same schema
 * and indexes, WAL, synchronous=NORMAL), inserted in one transaction per event-loop turn and
 * answered 202 once it committed; every 5 ms the messages taken are marked started, as the
 * dispatcher does, and a sender's next waiting message claimed and read back (its text is what its
 * run gets: a queue bounded by the store, not by memory, must read it from there). It also does the
 * rest of the required work (HMAC-SHA256 of the body compared in constant time, JSON parse); what
 * it skips is agentd's own: header checks, limits, UTF-8 and payload validation, redaction, the
 * replay and duplicate checks, the request log.
 */
async function serveBareDurable(): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), 'agentd-bench-bare-'));
  const { db } = new Database(homeFile(home, 'database'));
  const insertMessage = db.prepare(`INSERT INTO channel_inbox (channel, sender, content, metadata, received_at, request_id, run_id, claimed_by, claimed_until)
    VALUES ('webhook', ?, ?, ?, ?, NULL, ?, ?, ?)`);
  const kind = db.prepare(`INSERT INTO audit_kinds (event_type, category, result, severity, subsystem)
    VALUES ('webhook.accept', 'webhook', 'allow', 'info', 'webhook') RETURNING kind`).pluck().get() as number;
  const insertAudit = db.prepare(`INSERT INTO audit_events (id, timestamp, event_type, category, result, severity, subsystem, source, detail, prev_hash, hash, kind)
    VALUES (?, ?, 'webhook.accept', 'webhook', 'allow', 'info', 'webhook', '127.0.0.1', ?, ?, ?, ${kind})`);
  const countDay = db.prepare(`INSERT INTO audit_counts_days (day, kind, n) VALUES (?, ${kind}, 1) ON CONFLICT (day, kind) DO UPDATE SET n = n + 1`);
  const countHour = db.prepare(`INSERT INTO audit_counts_hours (hour, kind, n) VALUES (?, ${kind}, 1) ON CONFLICT (hour, kind) DO UPDATE SET n = n + 1`);
  const markStarted = db.prepare("UPDATE channel_inbox SET waiting = 0, content = '' WHERE id = ?");
  const claimNext = db.prepare(`UPDATE channel_inbox SET claimed_by = 'local', claimed_until = ?
    WHERE id = (SELECT min(id) FROM channel_inbox WHERE channel = 'webhook' AND sender = ? AND waiting = 1)
    RETURNING id, content, metadata`);
  // Each sender's waiting messages, as agentd keeps them, so only a start that has a next one claims it.
  const waiting = new Map<string, number>();
  let prevHash = GENESIS_HASH;
  let batch: { prompt: string; sender: string; headers: Record<string, string>; done: () => void }[] = [];
  let taken: { rowId: number | bigint; sender: string }[] = [];
  const commit = db.transaction((items: typeof batch) => {
    for (const item of items) {
      const now = new Date().toISOString();
      const queued = waiting.get(item.sender) ?? 0;
      waiting.set(item.sender, queued + 1);
      const claimUntil = queued === 0 ? new Date(Date.now() + 60_000).toISOString() : null;
      const metadata = JSON.stringify({ webhook_headers: item.headers });
      const { lastInsertRowid } = insertMessage.run(item.sender, item.prompt, metadata, now, newTimeOrderedId('run'), claimUntil && 'local', claimUntil);
      const event: AuditEvent = {
        id: newId('evt'), timestamp: now, event_type: 'webhook.accept', category: 'webhook', result: 'allow', severity: 'info',
        actor: null, source: '127.0.0.1', subsystem: 'webhook', action: null, session_id: null, task_id: null,
        detail: { sender: item.sender, prompt_length: item.prompt.length, ip: '127.0.0.1' },
      };
      const hash = eventHash(prevHash, event);
      insertAudit.run(event.id, now, JSON.stringify(event.detail), prevHash, hash);
      prevHash = hash;
      countDay.run(now.slice(0, 10));
      countHour.run(now.slice(0, 13));
      taken.push({ rowId: lastInsertRowid, sender: item.sender });
    }
  });
  const start = db.transaction((messages: typeof taken) => {
    const claimUntil = new Date(Date.now() + 60_000).toISOString();
    for (const { rowId, sender } of messages) {
      markStarted.run(rowId);
      const left = (waiting.get(sender) ?? 1) - 1;
      if (left === 0) waiting.delete(sender);
      else {
        waiting.set(sender, left);
        const next = claimNext.get(claimUntil, sender) as { id: number; content: string; metadata: string } | undefined;
        if (next !== undefined) JSON.parse(next.metadata);
      }
    }
  });
  const flush = () => {
    const items = batch;
    batch = [];
    commit(items);
    for (const item of items) item.done();
  };
  const consumer = setInterval(() => {
    const messages = taken;
    taken = [];
    start(messages);
  }, 5);
  await serveSignedJson((prompt, sender, answer, headers) => {
    if (batch.length === 0) setImmediate(flush);
    batch.push({ prompt, sender, headers, done: answer });
  }, () => {
    clearInterval(consumer);
    db.close();
    rmSync(home, { recursive: true, force: true });
  });
}

/**
 * The streaming baseline: node:http holding event streams open (GET, the same head and retry line
 * as agentd's) and writing frames to all of them (POST with `{frames, intervalMs}`: one frame to
 * every stream each interval, each frame one shared Buffer, then the streams end). What agentd
 * adds per viewer over this is its own work; what this costs is the sockets'.
 */
async function serveBareSse(): Promise<void> {
  const streams = new Set<import('node:http').ServerResponse>();
  const broadcast = ({ frames, intervalMs }: { frames: string[]; intervalMs: number }) => {
    const buffers = frames.map((frame) => Buffer.from(frame));
    let next = 0;
    const timer = setInterval(() => {
      const frame = buffers[next++];
      for (const res of streams) {
        if (frame) res.write(frame);
        else res.end();
      }
      if (!frame) clearInterval(timer);
    }, intervalMs);
  };
  const server = createServer((req, res) => {
    if (req.method === 'GET') {
      res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'text/event-stream; charset=utf-8', 'x-accel-buffering': 'no' });
      res.write('retry: 3000\n\n');
      streams.add(res);
      res.once('close', () => streams.delete(res));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      broadcast(JSON.parse(Buffer.concat(chunks).toString('utf8')) as { frames: string[]; intervalMs: number });
      res.writeHead(202).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  process.send?.({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: '' });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

/**
 * The health check's floor: bare node:http answering with what agentd's answer must carry (the
 * security headers, a fresh request id, the same body and content type) and none of agentd's
 * checks. agentd against this is what its own work costs; this against `bare` is what the required
 * bytes of the answer cost both ends of the connection (the load generator shares the machine).
 */
async function serveSameAnswer(body: string): Promise<void> {
  const head = [...Object.entries(SECURITY_HEADERS).flat(), REQUEST_ID_HEADER, '', 'content-type', 'application/json; charset=utf-8',
    'content-length', String(Buffer.byteLength(body))];
  const idSlot = head.indexOf(REQUEST_ID_HEADER) + 1;
  const server = createServer((_req, res) => {
    const headers = head.slice();
    headers[idSlot] = freshRequestId();
    res.writeHead(200, headers);
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  process.send?.({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: '' });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

/**
 * The in-memory webhook's baseline: the work docs/webhook.md requires of any handler (drain the body,
 * verify the same HMAC in constant time, parse the JSON, answer 202), nothing of agentd's own.
 */
function serveBareWebhook(): Promise<void> {
  return serveSignedJson((_prompt, _sender, answer) => answer(), () => undefined);
}

/**
 * A node:http server that reads each body, checks its `x-service-signature` (HMAC-SHA256 with
 * `args.secret`), parses it as JSON and hands the prompt and its sender on; `answer` sends the 202.
 */
async function serveSignedJson(
  accept: (prompt: string, sender: string, answer: () => void, headers: Record<string, string>) => void, stop: () => void,
): Promise<void> {
  const secret = String(args.secret ?? '');
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`);
      const given = Buffer.from(String(req.headers['x-service-signature'] ?? ''));
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        res.writeHead(401).end();
        return;
      }
      const { prompt, sender } = JSON.parse(raw.toString('utf8')) as { prompt: string; sender?: string };
      accept(prompt, sender ?? 'anonymous', () => {
        res.writeHead(202, { 'content-type': 'application/json' });
        res.end('{"status":"queued"}');
      }, pickWebhookHeaders(req.headers));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  process.send?.({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: '' });
  process.on('SIGTERM', () => server.close(() => {
    stop();
    process.exit(0);
  }));
}

void main();
