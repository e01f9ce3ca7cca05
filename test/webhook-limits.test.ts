import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMemoryLogger } from '../src/log.js';
import { startChannel, stopChannels } from './helpers/webhook.js';

const MIB = 1024 * 1024;

interface Reply {
  status: number;
  body: string;
}

function post(port: number, body: string | Buffer, headers: Record<string, string> = {}, agent?: Agent): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1', port, method: 'POST', path: '/', agent: agent ?? false,
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    req.end(body);
  });
}

/** `{"prompt":"x","pad":"…"}` padded to exactly `bytes` bytes. */
function paddedBody(bytes: number): string {
  const empty = '{"prompt":"x","pad":""}';
  return `{"prompt":"x","pad":"${'a'.repeat(bytes - empty.length)}"}`;
}

afterEach(stopChannels);

describe('webhook channel: body size', () => {
  it('accepts a body of exactly 1 MiB (1,048,576 bytes)', async () => {
    const channel = await startChannel();
    const body = paddedBody(MIB);
    expect(Buffer.byteLength(body)).toBe(1_048_576);
    const reply = await post(channel.port, body);
    expect(reply.status).toBe(202);
    expect(channel.receive()?.content).toBe('x');
  });

  it('refuses 1 MiB + 1 byte with 413 and queues nothing', async () => {
    const channel = await startChannel();
    const body = paddedBody(MIB + 1);
    expect(Buffer.byteLength(body)).toBe(1_048_577);
    const reply = await post(channel.port, body);
    expect(reply.status).toBe(413);
    expect(JSON.parse(reply.body)).toEqual({ status: 'error', error: 'Request body too large (limit 1 MiB)', code: 'AGENTD_PAYLOAD_TOO_LARGE' });
    expect(channel.pending).toBe(0);
  });
});

describe('webhook channel: queue', () => {
  it('delivers messages first in, first out', async () => {
    const channel = await startChannel();
    for (const prompt of ['one', 'two', 'three']) await post(channel.port, JSON.stringify({ prompt }));
    expect([channel.receive()?.content, channel.receive()?.content, channel.receive()?.content]).toEqual(['one', 'two', 'three']);
    expect(channel.receive()).toBeUndefined();
  });

  it('accepts 1,000 messages, answers 503 to the next, and takes one again after a receive()', async () => {
    const channel = await startChannel({ rateLimitPerMinute: 1e9 });
    const agent = new Agent({ keepAlive: true, maxSockets: 20 });
    try {
      const statuses = await Promise.all(
        Array.from({ length: 1000 }, (_, i) => post(channel.port, JSON.stringify({ prompt: `task ${i}` }), {}, agent)),
      );
      expect(statuses.every((r) => r.status === 202)).toBe(true);
      expect(channel.pending).toBe(1000);

      const full = await post(channel.port, '{"prompt":"one too many"}', {}, agent);
      expect(full.status).toBe(503);
      expect(JSON.parse(full.body)).toMatchObject({ status: 'error' });
      expect(channel.pending).toBe(1000);

      expect(channel.receive()?.content).toMatch(/^task \d+$/);
      expect((await post(channel.port, '{"prompt":"fits again"}', {}, agent)).status).toBe(202);
      expect((await post(channel.port, '{"prompt":"full again"}', {}, agent)).status).toBe(503);

      const drained: string[] = [];
      for (let m = channel.receive(); m !== undefined; m = channel.receive()) drained.push(m.content);
      expect(drained).toHaveLength(1000);
      expect(drained[drained.length - 1]).toBe('fits again');
    } finally {
      agent.destroy();
    }
  });
});

describe('webhook channel: rate-limit memory', () => {
  it('tracks at most 10,000 client IPs under 20,000 distinct forwarded addresses', async () => {
    const log = createMemoryLogger();
    const channel = await startChannel({ trustProxy: true, log });
    const agent = new Agent({ keepAlive: true, maxSockets: 50 });
    try {
      // GETs stop at the method check and never reach the limiter: use empty POSTs refused just
      // after it (415), which keep their keep-alive connection since there is no body to skip.
      const batch = 1000;
      for (let start = 0; start < 20_000; start += batch) {
        const replies = await Promise.all(
          Array.from({ length: batch }, (_, k) => {
            const i = start + k;
            const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
            return post(channel.port, '', { 'x-forwarded-for': ip, 'content-type': 'text/plain' }, agent);
          }),
        );
        expect(replies.every((r) => r.status === 415)).toBe(true);
        expect(channel.trackedClients).toBeLessThanOrEqual(10_000);
      }
      expect(channel.trackedClients).toBe(10_000);
      // Every tracked window was live, so live clients had to be forgotten: said once, not per eviction.
      const warnings = log.lines.filter((l) => l.includes(' warn ') && l.includes('rate limiter is tracking its maximum'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('webhook');
    } finally {
      agent.destroy();
    }
  });

  it('forgets stale clients before a blocked one whose window is still live', async () => {
    let now = 1_800_000_000_000;
    const log = createMemoryLogger();
    const channel = await startChannel({ trustProxy: true, rateLimitPerMinute: 1, now: () => now, log });
    const agent = new Agent({ keepAlive: true, maxSockets: 50 });
    // Empty text/plain POSTs pass the rate limit (when allowed) and stop at Content-Type: 415.
    const from = (ip: string) => post(channel.port, '', { 'x-forwarded-for': ip, 'content-type': 'text/plain' }, agent).then((r) => r.status);
    const others = Array.from({ length: 9_999 }, (_, i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
    const all = async (expected: number) => {
      for (let i = 0; i < others.length; i += 1000) {
        const statuses = await Promise.all(others.slice(i, i + 1000).map(from));
        expect(statuses.every((s) => s === expected)).toBe(true);
      }
    };
    try {
      await all(415); // 9,999 clients use their one request
      now += 30_000;
      expect(await from('203.0.113.7')).toBe(415);
      expect(await from('203.0.113.7')).toBe(429); // blocked until +90 s; 10,000 tracked
      now += 20_000;
      await all(429); // seen again and refused: their windows still end at +60 s
      now += 11_000;
      // The others are stale; the blocked client is not, though it is the least recently seen.
      for (let i = 0; i < 5; i++) expect(await from(`198.51.100.${i}`)).toBe(415);
      expect(await from('203.0.113.7')).toBe(429);
      expect(channel.trackedClients).toBe(10_000);
      expect(log.lines.some((l) => l.includes('rate limiter is tracking its maximum'))).toBe(false);
    } finally {
      agent.destroy();
    }
  });
});

describe('webhook channel: body memory', () => {
  it('refuses with 503 while 64 MiB of declared bodies are being read, and recovers as reads end', async () => {
    const channel = await startChannel({ rateLimitPerMinute: 1e9 });
    const stalled: Socket[] = [];
    try {
      for (let i = 0; i < 64; i++) {
        const socket = connect(channel.port, '127.0.0.1');
        socket.on('error', () => {});
        socket.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${MIB}\r\n\r\n{`);
        stalled.push(socket);
      }
      // Each uploader holds a reservation of its declared 1 MiB; once all 64 have one, even a
      // small request is refused before its body is read.
      const probe = async () => (await post(channel.port, '{"prompt":"probe"}')).status;
      await vi.waitFor(async () => expect(await probe()).toBe(503), { timeout: 5000 });
      const refused = await post(channel.port, '{"prompt":"probe"}');
      expect(JSON.parse(refused.body)).toEqual({ status: 'error', error: 'Too many request bodies in flight, retry later', code: 'AGENTD_AT_CAPACITY' });

      stalled.pop()?.destroy();
      await vi.waitFor(async () => expect(await probe()).toBe(202), { timeout: 5000 });
    } finally {
      for (const socket of stalled) socket.destroy();
    }
  });
});
