import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../src/app.js';
import type { ConfigInput } from '../src/config/schema.js';
import { createMemoryLogger } from '../src/log.js';
import { pct, round } from './stats.js';
import type { ScenarioResult } from './types.js';

/**
 * The Discord channel's message side under load: 50 channels, each sending its next message when
 * the previous one was answered, through the whole path: acceptance, the durable inbox (SQLite),
 * a run per message with the offline provider, "typing…" and the reply through `@discordjs/rest`
 * over the outbound gateway, to a minimal Discord REST stand-in on 127.0.0.1. Discord allows a bot
 * 50 requests a second in all and the REST client keeps to that, so with two requests a message
 * (typing and the reply) the ceiling is 25 messages a second; the figure is how close it comes.
 */
const CHANNELS = 50;
const MESSAGES_PER_CHANNEL = 10;
const TOKEN = 'bench-discord-token';
const BOT = '900000000000000001';
const GUILD = '100000000000000001';
const GLOBAL_REQUESTS_PER_SECOND = 50;
const REQUESTS_PER_MESSAGE = 2;

export async function discordScenario(): Promise<ScenarioResult> {
  const replies = new Map<string, number>();
  /** The sender waiting for each message's reply. */
  const waiting = new Map<string, () => void>();
  const rest = await startRestStandIn((messageId) => {
    replies.set(messageId, performance.now());
    waiting.get(messageId)?.();
    waiting.delete(messageId);
  });
  const home = mkdtempSync(join(tmpdir(), 'agentd-bench-discord-'));
  const app = await createApp({
    home, env: { DISCORD_BOT_TOKEN: TOKEN }, log: createMemoryLogger(),
    config: {
      api: { api_key: 'bench-discord-key-0123456789', port: 0 },
      discord: { enabled: true, allowed_guilds: [GUILD], respond_to: 'all', api_base_url: rest.baseUrl },
      network: { allowed_hosts: [rest.host] },
    } as ConfigInput,
  });
  try {
    await app.listen();
    app.discord!.ready({ userId: BOT });
    const sent = new Map<string, number>();
    let nextId = 1_250_000_000_000_000_000n;
    const channel = async (index: number) => {
      const channelId = String(200_000_000_000_000_000n + BigInt(index));
      for (let i = 0; i < MESSAGES_PER_CHANNEL; i++) {
        const id = String(nextId++);
        const answered = new Promise<void>((resolve) => waiting.set(id, resolve));
        sent.set(id, performance.now());
        await app.discord!.accept({ id, channel_id: channelId, guild_id: GUILD, author: { id: '300000000000000001' }, content: `what is ${i}*${index}?`, mentions: [] });
        await answered;
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: CHANNELS }, (_, i) => channel(i)));
    const seconds = (performance.now() - started) / 1000;
    const latencies = [...sent].map(([id, at]) => replies.get(id)! - at);
    const throughput = sent.size / seconds;
    const ceiling = GLOBAL_REQUESTS_PER_SECOND / REQUESTS_PER_MESSAGE;
    const met = replies.size === sent.size && throughput >= 0.8 * ceiling;
    return {
      scenario: `discord: ${CHANNELS} channels × ${MESSAGES_PER_CHANNEL} messages, offline provider, stored → run → typing + reply through the gateway`,
      figures: {
        messages: sent.size, replies: replies.size, msgs_per_s: round(throughput), ceiling_msgs_per_s: ceiling,
        p50_ms: round(pct(latencies, 50)), p99_ms: round(pct(latencies, 99)), rest_requests: rest.requests(),
      },
      goal: `every message answered once; throughput >= 80% of Discord's ceiling (${ceiling} messages/s at ${GLOBAL_REQUESTS_PER_SECOND} requests/s)`,
      met,
      headline: { agentd: `${round(throughput)} msg/s, p99 ${round(pct(latencies, 99))} ms`, baseline: `${ceiling} msg/s ceiling`, ratio: round(throughput / ceiling) },
    };
  } finally {
    await app.close();
    await rest.close();
    rmSync(home, { recursive: true, force: true });
  }
}

/** Answers typing (204) and message creation (the message, naming the one it replies to), with rate-limit headers that never run out; anything else 404. */
async function startRestStandIn(replied: (messageId: string) => void) {
  let count = 0;
  let created = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      count++;
      const headers = { 'x-ratelimit-limit': '1000', 'x-ratelimit-remaining': '999', 'x-ratelimit-reset-after': '1', 'x-ratelimit-bucket': 'bench' };
      if (req.url?.endsWith('/typing')) {
        res.writeHead(204, headers).end();
        return;
      }
      // The connection's own requests (GET /gateway/bot): this bench hands messages to the
      // service directly, so the Gateway is not offered.
      if (req.method !== 'POST') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"message": "404: Not Found", "code": 0}');
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { message_reference?: { message_id: string } };
      res.writeHead(200, { ...headers, 'content-type': 'application/json' }).end(JSON.stringify({ id: String(++created) }));
      if (body.message_reference) replied(body.message_reference.message_id);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/api/v10`,
    host: `127.0.0.1:${port}`,
    requests: () => count,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
