import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayError, RequestTimeoutError } from '../src/gateway/errors.js';
import { Gateway } from '../src/gateway/gateway.js';
import { NetworkPolicy } from '../src/policy/network-policy.js';
import { loopbackPolicy } from './gateway-support.js';
import { startTestApp } from './helpers/app.js';
import { quietLogger } from './helpers/log.js';

/**
 * The gateway's connection pool, measured where it counts: on loopback servers that count the
 * sockets they hold. The limits (20 connections, 10 kept alive; docs/gateway.md#connection-pool) are for the gateway as a
 * whole, across destinations.
 */

interface Counted {
  port: number;
  url: string;
  /** Sockets open now: accepted, and neither closed nor ended by the client. */
  open(): number;
  /** Most sockets open at any one time. */
  peak(): number;
  /** Sockets accepted so far. */
  accepted(): number;
  close(): Promise<void>;
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function countedServer(handler: (req: IncomingMessage, res: ServerResponse) => void, host = '127.0.0.1', port = 0): Promise<Counted> {
  let open = 0;
  let peak = 0;
  let accepted = 0;
  const server = createServer(handler);
  server.on('connection', (socket) => {
    accepted++;
    open++;
    peak = Math.max(peak, open);
    let counted = true;
    const gone = () => {
      if (!counted) return;
      counted = false;
      open--;
    };
    // The client's FIN is the moment it let go; the server's own close may come a turn later.
    socket.once('end', gone);
    socket.once('close', gone);
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const actual = (server.address() as AddressInfo).port;
  const counted: Counted = {
    port: actual,
    url: `http://${host}:${actual}`,
    open: () => open,
    peak: () => peak,
    accepted: () => accepted,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  closers.push(counted.close);
  return counted;
}

function gatewayFor(policy: NetworkPolicy, extra: ConstructorParameters<typeof Gateway>[0] = {}): Gateway {
  const gateway = new Gateway({ policy, log: quietLogger, ...extra });
  closers.push(() => gateway.close());
  return gateway;
}

/** Poll a condition the event loop will make true shortly (sockets closing); false after 3 s. */
async function eventually(condition: () => boolean): Promise<boolean> {
  for (let waited = 0; waited < 3000; waited += 10) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return condition();
}

const slowOk = (req: IncomingMessage, res: ServerResponse) => {
  setTimeout(() => res.end(`ok ${req.url}`), 50);
};

describe('the connection pool', () => {
  it('30 concurrent requests to 3 servers never hold more than 20 sockets, and 10 stay alive after', async () => {
    const servers = await Promise.all([countedServer(slowOk), countedServer(slowOk), countedServer(slowOk)]);
    const gateway = gatewayFor(loopbackPolicy(servers.map((s) => s.port)));
    const totalOpen = () => servers.reduce((sum, s) => sum + s.open(), 0);
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, totalOpen())), 1);
    try {
      const responses = await Promise.all(
        Array.from({ length: 30 }, (_, i) => gateway.client({ category: 'tool' }).get(`${servers[i % 3]!.url}/${i}`)),
      );
      expect(responses.map((r) => r.text())).toEqual(Array.from({ length: 30 }, (_, i) => `ok /${i}`));
    } finally {
      clearInterval(sampler);
    }
    // Sampled on a 1 ms timer and per server at each accept: both must stay within the limit.
    expect(peak).toBeLessThanOrEqual(20);
    expect(Math.max(...servers.map((s) => s.peak()))).toBeLessThanOrEqual(20);
    // 30 requests were in flight at once: the pool filled up to exactly its limit, no further.
    expect(peak).toBe(20);
    expect(await eventually(() => totalOpen() === 10)).toBe(true);
    expect(totalOpen()).toBe(10);
    expect(gateway.stats()).toEqual({ open: 10, idle: 10, waiting: 0 });
  });

  it('sequential requests from fresh clients reuse one socket', async () => {
    const server = await countedServer((_req, res) => res.end('ok'));
    const gateway = gatewayFor(loopbackPolicy([server.port]));
    for (let i = 0; i < 5; i++) {
      const response = await gateway.client({ category: 'provider', sessionId: `s${i}` }).get(`${server.url}/`);
      expect(response.text()).toBe('ok');
    }
    expect(server.accepted()).toBe(1);
  });

  it('a request that waits for a connection past its deadline fails with the timeout error', async () => {
    const held: ServerResponse[] = [];
    const server = await countedServer((_req, res) => held.push(res));
    const gateway = gatewayFor(loopbackPolicy([server.port]));
    const busy = Array.from({ length: 20 }, () => gateway.client({ category: 'tool', timeout: 10_000 }).get(`${server.url}/held`));
    expect(await eventually(() => held.length === 20)).toBe(true);
    const started = Date.now();
    const error = await gateway.client({ category: 'tool', timeout: 300 }).get(`${server.url}/late`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(Date.now() - started).toBeLessThan(1500);
    expect(server.accepted()).toBe(20);
    expect(gateway.stats()).toMatchObject({ open: 20, waiting: 0 });
    for (const res of held) res.end('released');
    expect((await Promise.all(busy)).map((r) => r.text())).toEqual(Array(20).fill('released'));
  });

  it('the wait queue is bounded: past it a request is refused at once', async () => {
    const held: ServerResponse[] = [];
    const server = await countedServer((_req, res) => held.push(res));
    const gateway = gatewayFor(loopbackPolicy([server.port]), { pool: { maxConnections: 1, maxWaiting: 2 } });
    const client = gateway.client({ category: 'tool', timeout: 10_000 });
    const first = client.get(`${server.url}/1`);
    expect(await eventually(() => held.length === 1)).toBe(true);
    const queued = [client.get(`${server.url}/2`), client.get(`${server.url}/3`)];
    expect(await eventually(() => gateway.stats().waiting === 2)).toBe(true);
    await expect(client.get(`${server.url}/4`)).rejects.toThrow(GatewayError);
    expect(gateway.stats().waiting).toBe(2);
    // The queued requests run, in turn, on the one connection.
    held[0]!.end('one');
    expect((await first).text()).toBe('one');
    expect(await eventually(() => held.length === 2)).toBe(true);
    held[1]!.end('two');
    expect(await eventually(() => held.length === 3)).toBe(true);
    held[2]!.end('three');
    expect((await Promise.all(queued)).map((r) => r.text())).toEqual(['two', 'three']);
    expect(server.accepted()).toBe(1);
  });

  it('reuses a socket only for the address the policy checked for that request', async () => {
    const first = await countedServer((_req, res) => res.end('first'), '127.0.0.1');
    // The same port on another loopback address: a second host behind the same name.
    const second = await countedServer((_req, res) => res.end('second'), '127.0.0.2', first.port);
    const answers = [['127.0.0.1'], ['127.0.0.1'], ['127.0.0.2']];
    const policy = NetworkPolicy.fromConfig({ allowed_hosts: [`pinned.test:${first.port}`], allowed_cidrs: ['127.0.0.0/8'] });
    const gateway = gatewayFor(policy, { resolver: async () => answers.shift() ?? [] });
    const get = async () => (await gateway.client({ category: 'tool' }).get(`http://pinned.test:${first.port}/`)).text();
    expect(await get()).toBe('first');
    expect(await get()).toBe('first');
    // DNS now says 127.0.0.2: the idle socket to 127.0.0.1 must not carry this request.
    expect(await get()).toBe('second');
    expect([first.accepted(), second.accepted()]).toEqual([1, 1]);
  });

  it('closing the gateway closes its idle sockets', async () => {
    const server = await countedServer((_req, res) => res.end('ok'));
    const gateway = new Gateway({ policy: loopbackPolicy([server.port]), log: quietLogger });
    await gateway.client({ category: 'tool' }).get(`${server.url}/`);
    expect(server.open()).toBe(1);
    await gateway.close();
    expect(await eventually(() => server.open() === 0)).toBe(true);
    await expect(gateway.client({ category: 'tool' }).get(`${server.url}/`)).rejects.toThrow(/closed/);
  });

  it('closing the app closes its gateway', async () => {
    const server = await countedServer((_req, res) => res.end('ok'));
    const test = await startTestApp({ config: { network: { allowed_hosts: [`127.0.0.1:${server.port}`] } } });
    try {
      expect((await test.app.gateway.client({ category: 'tool' }).get(`${server.url}/`)).text()).toBe('ok');
      expect(server.open()).toBe(1);
    } finally {
      await test.close();
    }
    expect(await eventually(() => server.open() === 0)).toBe(true);
  });
});
