import { createServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { GatewayClient } from '../src/gateway/client.js';
import { RequestTimeoutError, ResponseTooLargeError } from '../src/gateway/errors.js';
import { createClient } from '../src/gateway/gateway.js';
import { loopbackPolicy } from './gateway-support.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { quietLogger } from './helpers/log.js';

/**
 * No answer of a remote server may take the process down or hold a request past its deadline.
 * A raw TCP server plays each hostile shape byte for byte, for `get()` and the fetch adapter alike;
 * a spy on the process's last-resort handlers proves nothing escaped to them, and the real app
 * running in this process still answers its health check afterwards.
 */
const LIMIT = 1000;
const DRIP_BYTES = 40;
const DRIP_EVERY_MS = 200;
const TIMEOUT_MS = 500;

interface Hostile {
  port: number;
  /** Bytes of the drip body the server got to send before the client hung up. */
  dripped(): number;
  close(): Promise<void>;
}

async function startHostile(): Promise<Hostile> {
  const sockets = new Set<Socket>();
  let dripped = 0;
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    // Every request on the socket gets its answer: a well-formed one leaves the connection pooled.
    socket.on('data', (data) => {
      const path = data.toString('latin1').split(' ')[1];
      switch (path) {
        case '/declared':
          // Headers and the whole 2,000-byte body in one write: the body has arrived before the check.
          socket.write(`HTTP/1.1 200 OK\r\nContent-Length: 2000\r\n\r\n${'d'.repeat(2000)}`);
          return;
        case '/streamed':
          socket.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n');
          for (let i = 0; i < 4; i++) socket.write(`1f4\r\n${'s'.repeat(500)}\r\n`);
          socket.end('0\r\n\r\n');
          return;
        case '/reset':
          // Promises 800 bytes, sends 400, then drops the connection.
          socket.write(`HTTP/1.1 200 OK\r\nContent-Length: 800\r\n\r\n${'r'.repeat(400)}`, () => setTimeout(() => socket.destroy(), 20));
          return;
        case '/drip': {
          socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${DRIP_BYTES}\r\n\r\n`);
          const timer = setInterval(() => {
            if (socket.destroyed) return clearInterval(timer);
            socket.write('x');
            dripped++;
            if (dripped % DRIP_BYTES === 0) clearInterval(timer);
          }, DRIP_EVERY_MS);
          socket.on('close', () => clearInterval(timer));
          return;
        }
        default:
          socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    dripped: () => dripped,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

let hostile: Hostile;
let app: TestApp;
const clients: GatewayClient[] = [];
const escaped: unknown[] = [];
const record = (error: unknown) => escaped.push(error);

beforeAll(async () => {
  hostile = await startHostile();
  app = await startTestApp({ config: { network: { allowed_hosts: [`127.0.0.1:${hostile.port}`] } } });
  process.on('uncaughtException', record);
  process.on('unhandledRejection', record);
});
afterAll(async () => {
  process.off('uncaughtException', record);
  process.off('unhandledRejection', record);
  await app.close();
  await hostile.close();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

const options = { category: 'tool', timeout: TIMEOUT_MS, maxResponseBytes: LIMIT } as const;

/** The same shapes through the running app's own gateway and through a library client. */
const makers: [string, () => GatewayClient][] = [
  ['the app gateway', () => app.app.gateway.client(options)],
  ['a library client', () => createClient({ ...options, policy: loopbackPolicy([hostile.port]), log: quietLogger })],
];

const url = (path: string) => `http://127.0.0.1:${hostile.port}${path}`;

/** Let any stray error event or rejection of the request just made reach the spy. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe.each(makers)('hostile responses through %s', (_name, make) => {
  function client(): GatewayClient {
    const c = make();
    clients.push(c);
    return c;
  }

  async function fetchText(path: string): Promise<string> {
    const response = await client().fetch(url(path));
    return response.text();
  }

  beforeEach(() => {
    escaped.length = 0;
  });

  /** Nothing reached the process's last-resort handlers, and the app still answers. */
  async function stillServing(): Promise<void> {
    await settle();
    expect(escaped).toEqual([]);
    const health = await app.request('/api/v1/health');
    expect(health.status).toBe(200);
  }

  it('declared too big, body already here: get() refuses it', async () => {
    const error = await client().get(url('/declared')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(error).toMatchObject({ declared: 2000, limit: LIMIT });
    await stillServing();
  });

  it('declared too big, body already here: fetch() refuses it', async () => {
    const error = await fetchText('/declared').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(error).toMatchObject({ declared: 2000, limit: LIMIT });
    await stillServing();
  });

  it('streamed too big (chunked, no length): get() refuses it', async () => {
    const error = await client().get(url('/streamed')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(error).toMatchObject({ declared: null, limit: LIMIT });
    await stillServing();
  });

  it('streamed too big (chunked, no length): fetch() refuses it', async () => {
    const error = await fetchText('/streamed').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(error).toMatchObject({ declared: null, limit: LIMIT });
    await stillServing();
  });

  it('reset mid-body: get() fails with the socket error', async () => {
    const error = await client().get(url('/reset')).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'UND_ERR_SOCKET' });
    await stillServing();
  });

  it('reset mid-body: reading the fetch() body fails with the socket error', async () => {
    const error = await fetchText('/reset').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'UND_ERR_SOCKET' });
    await stillServing();
  });

  it.each([
    ['get()', () => client().get(url('/drip'))],
    ['fetch()', () => fetchText('/drip')],
  ])('slow body: %s fails at the deadline, not when the drip ends', async (_call, attempt) => {
    const before = hostile.dripped();
    const started = Date.now();
    const error = await (attempt as () => Promise<unknown>)().catch((e: unknown) => e);
    const elapsed = Date.now() - started;
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(error).toMatchObject({ timeoutMs: TIMEOUT_MS });
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(elapsed).toBeLessThan(1500);
    // The whole drip would have taken 8 s; the client hung up after a few bytes.
    expect(DRIP_BYTES * DRIP_EVERY_MS).toBeGreaterThan(5 * elapsed);
    await stillServing();
    expect(hostile.dripped() - before).toBeLessThan(DRIP_BYTES / 2);
  });

  it("slow body: the caller's signal ends get() mid-body with the caller's reason", async () => {
    const before = hostile.dripped();
    const controller = new AbortController();
    const reason = new Error('the caller gave up');
    // After the headers and a byte or two, well before the 500 ms deadline.
    setTimeout(() => controller.abort(reason), 250);
    const started = Date.now();
    const error = await client().get(url('/drip'), { signal: controller.signal }).catch((e: unknown) => e);
    expect(error).toBe(reason);
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS);
    await stillServing();
    expect(hostile.dripped() - before).toBeLessThan(DRIP_BYTES / 2);
  });
});
