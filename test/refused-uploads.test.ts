import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';
import { startChannel, stopChannels } from './helpers/webhook.js';

/**
 * A refusal sent while the client is still uploading its body must reach that client. Closing the
 * connection with body bytes still arriving makes the kernel reset it, and a client that writes its
 * whole request before reading (a simple client, or any on a slow uplink) then gets EPIPE or
 * ECONNRESET instead of the answer. Both listeners read and discard the rest first (bounded).
 */
const UPLOAD = 3 * 1024 * 1024;

/** Writes the head and the whole body, paced, and reads only once all of it is written. */
function upload(port: number, head: string): Promise<{ status: number; body: string } | { error: string }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.pause();
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    socket.on('close', () => {
      const status = /^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1];
      resolve(status ? { status: Number(status), body: text.slice(text.indexOf('\r\n\r\n') + 4) } : { error: 'no answer' });
    });
    socket.write(head);
    // A chunk every few milliseconds, as over a real uplink: the refusal comes while it is still sending.
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let sent = 0;
    const pump = (): void => {
      if (socket.destroyed) return;
      if (sent >= UPLOAD) return void socket.resume();
      sent += chunk.length;
      socket.write(chunk, () => setTimeout(pump, 2));
    };
    pump();
  });
}

const request = (path: string, headers: Record<string, string>) =>
  `POST ${path} HTTP/1.1\r\n${Object.entries({ host: '127.0.0.1', ...headers }).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
  await stopChannels();
});

describe('a refused upload gets its answer before the connection closes', () => {
  it('on the API: a client asking to close (or to upgrade) reads the refusal, as do one over the limit and one whose framing is malformed', async () => {
    t = await startTestApp();
    const port = Number(new URL(t.url).port);
    const length = { 'content-type': 'application/json', 'content-length': String(UPLOAD) };
    const closings: Record<string, string>[] = [{ connection: 'close' }, { connection: 'close, upgrade', upgrade: 'websocket' }];
    for (const closing of closings) {
      const unauthenticated = await upload(port, request('/api/v1/chat', { ...length, ...closing }));
      expect(unauthenticated).toMatchObject({ status: 401 });
      expect((unauthenticated as { body: string }).body).toContain('"code":"AGENTD_UNAUTHORIZED"');
      expect(await upload(port, request('/api/v1/chat', { ...length, ...closing, authorization: `Bearer ${t.apiKey}` })))
        .toMatchObject({ status: 413 });
    }
    // A keep-alive request over the limit: the framework closes after its 413 on its own.
    expect(await upload(port, request('/api/v1/scheduler/jobs', { ...length, authorization: `Bearer ${t.apiKey}` })))
      .toMatchObject({ status: 413, body: expect.stringContaining('"code":"AGENTD_PAYLOAD_TOO_LARGE"') });
    // Both framings at once: Node's parser refuses it, the raw answer is read all the same.
    expect(await upload(port, request('/api/v1/chat', { ...length, 'transfer-encoding': 'chunked' }))).toMatchObject({ status: 400 });
    expect((await t.request('/api/v1/health')).status).toBe(200);
  });

  it('on the webhook: a body refused before it is read (wrong type, too large, malformed framing) is answered', async () => {
    const channel = await startChannel();
    const length = { 'content-length': String(UPLOAD) };
    expect(await upload(channel.port, request('/', { ...length, 'content-type': 'text/plain' }))).toMatchObject({ status: 415 });
    expect(await upload(channel.port, request('/', { ...length, 'content-type': 'application/json' }))).toMatchObject({ status: 413 });
    expect(await upload(channel.port, request('/', { ...length, 'content-type': 'application/json', 'transfer-encoding': 'chunked' })))
      .toMatchObject({ status: 400 });
  });
});
