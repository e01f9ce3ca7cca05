import { fork } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditLog } from '../src/audit/log.js';
import { DurableInbox } from '../src/channels/inbox/durable-inbox.js';
import { computeSignature, WebhookChannel } from '../src/channels/webhook/index.js';
import { createMemoryLogger } from '../src/log.js';
import { SqliteStorage } from '../src/storage/sqlite/index.js';
import { ratioScenario, type Served } from './load.js';
import { startChildServer } from './servers.js';
import type { ScenarioResult } from './types.js';
import { homeFile } from '../src/config/home-layout.js';

/**
 * Signed 1 KiB webhook POSTs answered 202 by the real channel (every check, HMAC, strict UTF-8
 * JSON parse, queue) against a bare node:http server that drains the same body, verifies the same
 * HMAC, parses the JSON and answers 202.
 * Both run in child processes, the load generator in this one. The rate limit is raised so the
 * 50 connections measure the pipeline, not the limiter's refusals; a consumer drains the queue
 * the way an embedding agent would, so it never fills.
 */
const SECRET = 'bench-webhook-secret-0123456789';
const CHILD_ARG = 'serve-webhook';
const DURABLE_CHILD_ARG = 'serve-durable-webhook';
const BODY = oneKibBody();

export function webhookScenario(): Promise<ScenarioResult> {
  const headers = { 'content-type': 'application/json', 'x-service-signature': computeSignature(SECRET, BODY) };
  return ratioScenario({
    scenario: 'webhook: signed 1 KiB POST → 202 vs bare node:http doing the same required work (body, HMAC, JSON parse)',
    label: 'webhook',
    minRatio: 0.85,
    subject: () => startWebhookChild(CHILD_ARG),
    baseline: () => startChildServer('bare-webhook', { secret: SECRET }),
    requests: (webhook, bare) => [
      { url: `${webhook.url}/`, method: 'POST', headers, body: BODY },
      { url: `${bare.url}/`, method: 'POST', headers, body: BODY },
    ],
  });
}

/**
 * The same POSTs against the intake `agentd serve` runs: each message and its audit event are
 * committed to SQLite before the 202. The baseline does the same required work on bare node:http
 * (signature, JSON parse, the same two rows committed per event-loop turn; see server-child.ts).
 */
export function durableWebhookScenario(): Promise<ScenarioResult> {
  // Many senders: the intake runs one message at a time per sender, so a single sender posting
  // thousands a second would only fill its queue (503 at capacity, as it should).
  const requests = Array.from({ length: SENDERS }, (_, i) => {
    const body = oneKibBody(`sender-${i}`);
    return { body, headers: { 'content-type': 'application/json', 'x-service-signature': computeSignature(SECRET, body) } };
  });
  return ratioScenario({
    scenario: 'webhook (serve): signed 1 KiB POST stored before 202 vs node:http verifying and committing the same rows',
    label: 'webhook_durable',
    minRatio: 0.8,
    subject: () => startWebhookChild(DURABLE_CHILD_ARG),
    baseline: () => startChildServer('bare-durable', { secret: SECRET }),
    requests: (webhook, bare) => [
      { url: `${webhook.url}/`, method: 'POST', requests },
      { url: `${bare.url}/`, method: 'POST', requests },
    ],
  });
}

const SENDERS = 512;

/** `{"prompt":"…"}` (with `sender` when given) of exactly 1,024 bytes. */
function oneKibBody(sender?: string): string {
  const empty = JSON.stringify({ prompt: '', ...(sender ? { sender } : {}) });
  return JSON.stringify({ prompt: 'p'.repeat(1024 - empty.length), ...(sender ? { sender } : {}) });
}

async function startWebhookChild(mode: string): Promise<Served> {
  const child = fork(fileURLToPath(import.meta.url), [mode], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const url = await new Promise<string>((resolveUrl, reject) => {
    child.once('message', (m) => resolveUrl((m as { url: string }).url));
    child.once('exit', (code) => reject(new Error(`webhook bench server exited with ${code}`)));
  });
  return {
    url,
    pid: child.pid,
    close: () =>
      new Promise<void>((done) => {
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  };
}

/** Child side: the channel plus a consumer loop. Runs only when this file is forked as above. */
async function serveWebhook(): Promise<void> {
  const channel = new WebhookChannel({ port: 0, secret: SECRET, rateLimitPerMinute: 1e9, log: createMemoryLogger() });
  await channel.start();
  // 5 ms between drains keeps the queue far below its 1,000 at any rate this machine reaches.
  const consumer = setInterval(() => {
    while (channel.receive() !== undefined);
  }, 5);
  process.send?.({ url: `http://127.0.0.1:${channel.port}` });
  process.on('SIGTERM', () => {
    clearInterval(consumer);
    void channel.stop().finally(() => process.exit(0));
  });
}

/** Child side of the durable scenario: the channel on the SQLite intake, drained as the dispatcher would. */
async function serveDurableWebhook(): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), 'agentd-bench-webhook-'));
  const storage = new SqliteStorage(homeFile(home, 'database'), { checkpointer: true });
  const log = createMemoryLogger();
  // The queue's bound (1,000 waiting) is lifted: the scenario measures the intake's rate, and the
  // consumer below takes a sender's next message only after a claim cycle, as the dispatcher does.
  const inbox = new DurableInbox({
    channel: 'webhook', store: storage.inbox, owner: storage.owner, runExists: async () => false, log, capacity: 1_000_000,
  });
  const channel = new WebhookChannel({
    port: 0, secret: SECRET, rateLimitPerMinute: 1e9, log, intake: inbox, audit: new AuditLog(storage.audit),
  });
  await channel.start();
  // Woken by the inbox as the dispatcher is (ChannelDispatcher.start), not on a timer: a sender's
  // next message is claimed as the previous one starts, and a consumer polling every few
  // milliseconds would hold each sender's queue back by that much per message.
  const unlisten = inbox.listen(() => {
    for (let message = inbox.receive(); message !== undefined; message = inbox.receive()) inbox.settled(message);
  });
  process.send?.({ url: `http://127.0.0.1:${channel.port}` });
  process.on('SIGTERM', () => {
    unlisten();
    void channel.stop().then(() => storage.close()).finally(() => {
      rmSync(home, { recursive: true, force: true });
      process.exit(0);
    });
  });
}

const childMode = resolve(process.argv[1] ?? '') === fileURLToPath(import.meta.url) ? process.argv[2] : undefined;
if (childMode === CHILD_ARG) void serveWebhook();
if (childMode === DURABLE_CHILD_ARG) void serveDurableWebhook();
