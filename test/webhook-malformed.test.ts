import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startChannel, stopChannels } from './helpers/webhook.js';

/**
 * Requests a normal client would never send, written byte for byte on a raw socket. Each helper
 * resolves with everything the server wrote once it has closed the connection (or, for the
 * keep-alive cases, after `until` matches), so "no response" shows up as an empty string.
 */
interface RawOptions {
  /** Half-close our side after writing (the client waits for an answer). */
  halfClose?: boolean;
  /** Resolve as soon as the received text satisfies this, without waiting for the close. */
  until?: (text: string) => boolean;
  /** Called with the socket after the initial write (to trickle or stall). */
  then?: (socket: Socket) => void;
}

function raw(port: number, data: string | Buffer, options: RawOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    const done = () => {
      socket.destroy();
      resolve(text);
    };
    socket.on('connect', () => {
      socket.write(data);
      if (options.halfClose) socket.end();
      options.then?.(socket);
    });
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      if (options.until?.(text)) done();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') done();
      else reject(error);
    });
    socket.on('close', done);
  });
}

interface RawReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Every HTTP response in `text` (there can be several on one keep-alive connection). */
function parseResponses(text: string): RawReply[] {
  const replies: RawReply[] = [];
  let rest = text;
  while (rest.startsWith('HTTP/1.1 ')) {
    const end = rest.indexOf('\r\n\r\n');
    const head = rest.slice(0, end).split('\r\n');
    const status = Number(head[0]?.split(' ')[1]);
    const headers: Record<string, string> = {};
    for (const line of head.slice(1)) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    const body = rest.slice(end + 4, end + 4 + length);
    rest = rest.slice(end + 4 + length);
    if (status !== 100) replies.push({ status, headers, body });
  }
  return replies;
}

function single(text: string): RawReply {
  const replies = parseResponses(text);
  expect(replies).toHaveLength(1);
  return replies[0] as RawReply;
}

function expectEnvelope(reply: RawReply, status: number, error?: string): void {
  expect(reply.status).toBe(status);
  expect(reply.headers['x-content-type-options']).toBe('nosniff');
  expect(reply.headers['x-frame-options']).toBe('DENY');
  expect(reply.headers['cache-control']).toBe('no-store');
  const parsed = JSON.parse(reply.body) as { status: string; error: string };
  expect(parsed.status).toBe('error');
  if (error !== undefined) expect(parsed.error).toBe(error);
}

afterEach(stopChannels);

const head = (lines: string[]) => `${lines.join('\r\n')}\r\n\r\n`;
const post = (...headers: string[]) => head(['POST / HTTP/1.1', 'Host: localhost', 'Content-Type: application/json', ...headers]);
const VALID = '{"prompt":"hello"}';
const validRequest = post(`Content-Length: ${VALID.length}`) + VALID;

describe('webhook channel: malformed framing is answered, never dropped', () => {
  it('400 for a POST without Content-Length', async () => {
    const channel = await startChannel();
    expectEnvelope(single(await raw(channel.port, post())), 400, 'Content-Length is required (chunked bodies are not accepted)');
  });

  it('400 for a chunked body without a length', async () => {
    const channel = await startChannel();
    const text = await raw(channel.port, `${post('Transfer-Encoding: chunked')}12\r\n${VALID}\r\n0\r\n\r\n`);
    expectEnvelope(single(text), 400, 'Content-Length is required (chunked bodies are not accepted)');
    expect(channel.pending).toBe(0);
  });

  it.each(['-1', '1.5', 'abc', '+18', '0x12'])('400 for Content-Length: %s', async (value) => {
    const channel = await startChannel();
    expectEnvelope(single(await raw(channel.port, post(`Content-Length: ${value}`) + VALID)), 400);
    expect(channel.pending).toBe(0);
  });

  it('400 for both Content-Length and Transfer-Encoding (a request-smuggling shape)', async () => {
    const channel = await startChannel();
    const text = await raw(channel.port, `${post(`Content-Length: ${VALID.length}`, 'Transfer-Encoding: chunked')}${VALID}`);
    expectEnvelope(single(text), 400);
    expect(channel.pending).toBe(0);
  });

  it('400 for a request line that is not HTTP', async () => {
    const channel = await startChannel();
    expectEnvelope(single(await raw(channel.port, 'HELLO THERE\r\n\r\n')), 400, 'Malformed HTTP request');
  });

  it('431 for headers over the size limit', async () => {
    const channel = await startChannel();
    const text = await raw(channel.port, post(`X-Padding: ${'a'.repeat(20_000)}`, 'Content-Length: 2') + '{}');
    expectEnvelope(single(text), 431);
  });

  it('405 with Allow: POST for CONNECT', async () => {
    const channel = await startChannel();
    const reply = single(await raw(channel.port, head(['CONNECT example.com:443 HTTP/1.1', 'Host: example.com:443'])));
    expectEnvelope(reply, 405);
    expect(reply.headers.allow).toBe('POST');
  });

  it('405 with Allow: POST for a method token the HTTP parser does not know', async () => {
    const channel = await startChannel();
    const reply = single(await raw(channel.port, head(['FOO / HTTP/1.1', 'Host: localhost'])));
    expectEnvelope(reply, 405, 'Method not allowed');
    expect(reply.headers.allow).toBe('POST');
  });

  it('accepts an HTTP/1.1 request without Host instead of a bare parser 400', async () => {
    const channel = await startChannel();
    const text = await raw(channel.port, head(['POST / HTTP/1.1', 'Content-Type: application/json', `Content-Length: ${VALID.length}`]) + VALID);
    const reply = single(text);
    expect(reply.status).toBe(202);
    expect(reply.headers['x-content-type-options']).toBe('nosniff');
  });

  it('400 when the client sends less than Content-Length and half-closes', async () => {
    const channel = await startChannel();
    const text = await raw(channel.port, post('Content-Length: 100') + '{"prompt":', { halfClose: true });
    expectEnvelope(single(text), 400, 'Request body shorter than Content-Length');
    expect(channel.pending).toBe(0);
  });

  it('survives a client that closes before sending the whole body, and keeps serving', async () => {
    const channel = await startChannel();
    await new Promise<void>((resolve) => {
      const socket = connect(channel.port, '127.0.0.1', () => {
        socket.write(post('Content-Length: 100') + '{"prompt":');
        setImmediate(() => {
          socket.destroy();
          resolve();
        });
      });
    });
    await vi.waitFor(() => expect(channel.openConnections).toBe(0), { timeout: 5000 });
    expect(channel.pending).toBe(0);
    expect(single(await raw(channel.port, validRequest, { until: (t) => t.includes('queued') })).status).toBe(202);
  });
});

describe('webhook channel: slow bodies', () => {
  it('answers 408 and closes the connection when the body stalls (slow loris)', async () => {
    const channel = await startChannel({ bodyTimeoutMs: 300 });
    const text = await raw(channel.port, post('Content-Length: 100') + '{"prompt":"partial');
    expectEnvelope(single(text), 408, 'Request body not received in time');
    await vi.waitFor(() => expect(channel.openConnections).toBe(0), { timeout: 5000 });
    expect(channel.pending).toBe(0);
  });

  it('times out a body trickled a byte at a time: the limit covers the whole body', async () => {
    const channel = await startChannel({ bodyTimeoutMs: 300 });
    let timer: NodeJS.Timeout | undefined;
    const text = await raw(channel.port, post('Content-Length: 1000'), {
      then: (socket) => {
        timer = setInterval(() => socket.writable && socket.write('a'), 20);
      },
    });
    clearInterval(timer);
    expectEnvelope(single(text), 408);
    await vi.waitFor(() => expect(channel.openConnections).toBe(0), { timeout: 5000 });
  });
});

describe('webhook channel: connection handling', () => {
  it('answers two requests on one keep-alive connection', async () => {
    const channel = await startChannel();
    const text = await raw(channel.port, validRequest + validRequest, {
      until: (t) => parseResponses(t).length === 2,
    });
    expect(parseResponses(text).map((r) => r.status)).toEqual([202, 202]);
    expect(channel.pending).toBe(2);
  });

  it('answers a valid request and then a malformed one that follows it on the same connection', async () => {
    const channel = await startChannel();
    const text = await raw(channel.port, `${validRequest}GARBAGE\r\n\r\n`);
    const replies = parseResponses(text);
    expect(replies.map((r) => r.status)).toEqual([202, 400]);
    expectEnvelope(replies[1] as RawReply, 400);
  });

  it('closes the connection after refusing a request whose body it did not read', async () => {
    const channel = await startChannel();
    const text = await raw(channel.port, `${head(['POST / HTTP/1.1', 'Host: localhost', 'Content-Type: text/plain', 'Content-Length: 2'])}{}`);
    const reply = single(text);
    expect(reply.status).toBe(415);
    expect(reply.headers.connection).toBe('close');
  });

  it('refuses an Expect: 100-continue request without inviting the body', async () => {
    const channel = await startChannel();
    const text = await raw(
      channel.port,
      head(['POST / HTTP/1.1', 'Host: localhost', 'Content-Type: text/plain', 'Content-Length: 18', 'Expect: 100-continue']),
    );
    expect(text).not.toContain('100 Continue');
    expect(single(text).status).toBe(415);
  });

  it('sends 100 Continue to an acceptable Expect: 100-continue request, then 202', async () => {
    const channel = await startChannel();
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1', port: channel.port, method: 'POST', path: '/', agent: false,
          headers: { 'content-type': 'application/json', 'content-length': VALID.length, expect: '100-continue' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('continue', () => req.end(VALID));
      req.on('error', reject);
    });
    expect(status).toBe(202);
    expect(channel.receive()?.content).toBe('hello');
  });

  it('stop() closes idle keep-alive connections', async () => {
    const channel = await startChannel();
    const socket = connect(channel.port, '127.0.0.1');
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('error', () => {});
    await new Promise<void>((resolve) => socket.on('connect', () => resolve()));
    socket.write(validRequest);
    await new Promise<void>((resolve) => socket.once('data', () => resolve()));
    expect(channel.openConnections).toBe(1);
    await channel.stop();
    await closed;
    expect(channel.openConnections).toBe(0);
  });
});
