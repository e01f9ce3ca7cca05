import { spawn } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayClient } from '../src/gateway/client.js';
import { createClient } from '../src/gateway/gateway.js';
import { ResponseTooLargeError } from '../src/gateway/errors.js';
import { loopbackPolicy, startHttp, startSink, type HttpServer, type Sink } from './gateway-support.js';
import { rssAfterGcMb } from './helpers/memory.js';
import { quietLogger } from './helpers/log.js';

const MB = 1024 * 1024;
const LIMIT = 1 * MB;
const HUGE = 60 * MB;

/**
 * A raw TCP server so that each response can misbehave exactly as intended (lie about its length,
 * stream forever). It writes with backpressure and stops as soon as the client hangs up, reporting
 * how many body bytes it managed to send. It runs in a child process, so that the memory it churns
 * through is not counted against the gateway in this one.
 */
interface RawServer {
  port: number;
  /** Body bytes the next pumped connection writes, reported when it closes (call before the request). */
  nextWritten(): Promise<number>;
  close(): Promise<void>;
}

const RAW_SERVER = `
const net = require('node:net');
const [HUGE, LIMIT] = [${HUGE}, ${LIMIT}];
const CHUNK = Buffer.alloc(64 * 1024, 0x61);
function pump(socket, total, chunked) {
  let written = 0;
  socket.on('close', () => process.send({ written }));
  const write = () => {
    while (written < total && !socket.destroyed) {
      const piece = CHUNK.subarray(0, Math.min(CHUNK.length, total - written));
      written += piece.length;
      const frame = chunked ? Buffer.concat([Buffer.from(piece.length.toString(16) + '\\r\\n'), piece, Buffer.from('\\r\\n')]) : piece;
      if (!socket.write(frame)) return void socket.once('drain', write);
    }
    if (!socket.destroyed) socket.end(chunked ? '0\\r\\n\\r\\n' : undefined);
  };
  write();
}
const head = (lines) => lines.join('\\r\\n') + '\\r\\n\\r\\n';
const server = net.createServer((socket) => {
  socket.on('error', () => {});
  socket.once('data', (data) => {
    const path = data.toString('latin1').split(' ')[1];
    switch (path) {
      case '/chunked':
        socket.write(head(['HTTP/1.1 200 OK', 'Transfer-Encoding: chunked']));
        return pump(socket, HUGE, true);
      case '/contradictory':
        // Claims 1000 bytes (well under the limit) while the chunked framing carries 60 MB.
        socket.write(head(['HTTP/1.1 200 OK', 'Content-Length: 1000', 'Transfer-Encoding: chunked']));
        return pump(socket, HUGE, true);
      case '/unframed':
        socket.write(head(['HTTP/1.1 200 OK', 'Connection: close']));
        return pump(socket, HUGE, false);
      case '/declared':
        // Declares 60 MB, sends a little, then stalls: only the Content-Length check can answer quickly.
        socket.write(head(['HTTP/1.1 200 OK', 'Content-Length: ' + HUGE]));
        return void socket.write(CHUNK);
      case '/overstated':
        // Declares 60 MB, delivers 10 bytes.
        return void socket.end(head(['HTTP/1.1 200 OK', 'Content-Length: ' + HUGE]) + '0123456789');
      case '/understated':
        socket.write(head(['HTTP/1.1 200 OK', 'Content-Length: 100']));
        return pump(socket, HUGE, false);
      case '/exact':
        socket.write(head(['HTTP/1.1 200 OK', 'Content-Length: ' + LIMIT]));
        return pump(socket, LIMIT, false);
      case '/one-over':
        socket.write(head(['HTTP/1.1 200 OK', 'Transfer-Encoding: chunked']));
        return pump(socket, LIMIT + 1, true);
      case '/head':
        return void socket.end(head(['HTTP/1.1 200 OK', 'Content-Length: ' + HUGE]));
      default:
        socket.end(head(['HTTP/1.1 404 Not Found', 'Content-Length: 0']));
    }
  });
});
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('disconnect', () => process.exit(0));
`;

async function startRaw(): Promise<RawServer> {
  const child = spawn(process.execPath, ['-e', RAW_SERVER], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiting: ((n: number) => void)[] = [];
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.on('message', (message: { port?: number; written?: number }) => {
      if (message.port !== undefined) resolve(message.port);
      if (message.written !== undefined) waiting.shift()?.(message.written);
    });
  });
  return {
    port,
    nextWritten: () => new Promise<number>((resolve) => waiting.push(resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.disconnect();
      }),
  };
}

let raw: RawServer;
let redirector: HttpServer;
let target: Sink;
const clients: GatewayClient[] = [];

beforeAll(async () => {
  raw = await startRaw();
  target = await startSink();
  redirector = await startHttp((req, res) => {
    const code = Number(req.url?.split('/')[2]);
    res.writeHead(code, { location: `http://127.0.0.1:${target.port}/landing`, 'content-type': 'text/plain' });
    res.end('moved');
  });
});
afterAll(async () => {
  await Promise.all([raw.close(), redirector.close(), target.close()]);
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

function client(maxResponseBytes = LIMIT): GatewayClient {
  const c = createClient({
    category: 'tool',
    timeout: 10_000,
    maxResponseBytes,
    policy: loopbackPolicy([raw.port, redirector.port, target.port]),
    log: quietLogger,
  });
  clients.push(c);
  return c;
}

describe('redirects are never followed', () => {
  it.each([301, 302, 303, 307, 308])('%i is returned as-is and the target is never contacted', async (code) => {
    const before = target.connections();
    const response = await client().get(`${redirector.url}/r/${code}`);
    expect(response.status).toBe(code);
    expect(response.headers.get('location')).toBe(`http://127.0.0.1:${target.port}/landing`);
    expect(response.text()).toBe('moved');
    const viaFetch = await client().fetch(`${redirector.url}/r/${code}`, { method: 'POST', body: '{}', redirect: 'follow' });
    expect(viaFetch.status).toBe(code);
    expect(await viaFetch.text()).toBe('moved');
    expect(target.connections()).toBe(before);
  });
});

async function drainFetch(url: string): Promise<unknown> {
  const response = await client().fetch(url);
  const reader = response.body!.getReader();
  for (;;) {
    const { done } = await reader.read();
    if (done) return null;
  }
}

describe('response size limit', () => {
  it.each(['/chunked', '/unframed'])('%s: a 60 MB body is cut off just past 1 MB', async (path) => {
    let written = raw.nextWritten();
    await expect(client().get(`http://127.0.0.1:${raw.port}${path}`)).rejects.toBeInstanceOf(ResponseTooLargeError);
    // The read stopped early: the server could not push the 60 MB (only what socket buffers hold).
    expect(await written).toBeLessThan(20 * MB);
    written = raw.nextWritten();
    await expect(drainFetch(`http://127.0.0.1:${raw.port}${path}`)).rejects.toBeInstanceOf(ResponseTooLargeError);
    expect(await written).toBeLessThan(20 * MB);
  });

  describe('a lying Content-Length', () => {
    it('declaring more than the limit is refused before the body is read', async () => {
      const error = await client().get(`http://127.0.0.1:${raw.port}/declared`).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ResponseTooLargeError);
      expect(error).toMatchObject({ limit: LIMIT, declared: HUGE });
      await expect(client().fetch(`http://127.0.0.1:${raw.port}/declared`)).rejects.toBeInstanceOf(ResponseTooLargeError);
    });

    it('declaring more than the limit is refused even when the real body is tiny', async () => {
      await expect(client().get(`http://127.0.0.1:${raw.port}/overstated`)).rejects.toBeInstanceOf(ResponseTooLargeError);
    });

    it('declaring less cannot smuggle more: the body ends where the header said', async () => {
      const response = await client().get(`http://127.0.0.1:${raw.port}/understated`);
      expect(response.bytes().byteLength).toBe(100);
    });

    it('contradicting the chunked framing is refused as malformed, early', async () => {
      const written = raw.nextWritten();
      const error = await client().get(`http://127.0.0.1:${raw.port}/contradictory`).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect(error).not.toBeInstanceOf(ResponseTooLargeError);
      expect(await written).toBeLessThan(20 * MB);
    });
  });

  it('exactly the limit passes; one byte more does not', async () => {
    expect((await client().get(`http://127.0.0.1:${raw.port}/exact`)).bytes().byteLength).toBe(LIMIT);
    await expect(client().get(`http://127.0.0.1:${raw.port}/one-over`)).rejects.toBeInstanceOf(ResponseTooLargeError);
  });

  it('HEAD is not refused for the Content-Length of the body it does not carry', async () => {
    const response = await client().head(`http://127.0.0.1:${raw.port}/head`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe(String(HUGE));
  });

  it('process memory grows by less than 30 MB across repeated 60 MB attempts', async () => {
    const round = async () => {
      for (const path of ['/chunked', '/unframed', '/declared']) {
        await expect(client().get(`http://127.0.0.1:${raw.port}${path}`)).rejects.toBeInstanceOf(ResponseTooLargeError);
        await expect(drainFetch(`http://127.0.0.1:${raw.port}${path}`)).rejects.toBeInstanceOf(ResponseTooLargeError);
      }
      await expect(client().get(`http://127.0.0.1:${raw.port}/contradictory`)).rejects.toBeInstanceOf(Error);
      expect((await client().get(`http://127.0.0.1:${raw.port}/understated`)).bytes().byteLength).toBe(100);
    };
    // Two rounds first, so that one-time growth (parsers, buffers, compiled code, the V8 heap
    // settling on its size) is not counted.
    await round();
    await round();
    const before = rssAfterGcMb();
    for (let i = 0; i < 3; i++) await round();
    // Seven 60 MB answers per round: holding any one of them would add 60 MB. The bound is half
    // of that: the allocator's own RSS drift on a loaded machine reached 11 MB (a 10 MB bound failed
    // without anything being held).
    expect(rssAfterGcMb() - before).toBeLessThan(30);
  });
});
