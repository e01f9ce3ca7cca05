import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';
import { startChannel, stopChannels } from './helpers/webhook.js';

/**
 * A request asking to upgrade the connection (WebSocket, h2c) is answered as plain HTTP and its
 * connection closed. Kept open, a malformed request that followed on it got no answer at all: the
 * client waited until it gave up.
 */
function exchange(port: number, first: string, second: string): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closed: false });
    }, 3_000);
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closed: true });
    });
    socket.write(first);
    // The second request once the first is answered, as a keep-alive client sends it.
    const poll = setInterval(() => {
      if (!text.includes('\r\n\r\n') || socket.destroyed) return;
      clearInterval(poll);
      socket.write(second);
    }, 10);
    socket.on('close', () => clearInterval(poll));
  });
}

const MALFORMED = 'POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 6\r\nContent-Length: 7\r\n\r\n_XeJj=';

function expectClosedAfterFirstAnswer(result: { text: string; closed: boolean }, status: number): void {
  expect(result.closed).toBe(true);
  const head = result.text.slice(0, result.text.indexOf('\r\n\r\n')).toLowerCase();
  expect(head.startsWith(`http/1.1 ${status} `)).toBe(true);
  expect(head).toContain('connection: close');
  expect(head).toContain('x-content-type-options: nosniff');
}

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
  await stopChannels();
});

describe('a request asking for an upgrade', () => {
  it('is answered by the REST listener, which then closes the connection', async () => {
    t = await startTestApp();
    const upgrade = `GET /api/v1/health HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.apiKey}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n`;
    expectClosedAfterFirstAnswer(await exchange(t.app.port, upgrade, MALFORMED), 200);
  });

  it('is answered by the webhook listener, which then closes the connection', async () => {
    const channel = await startChannel();
    const upgrade = 'POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nConnection: Upgrade\r\nUpgrade: h2c\r\nContent-Length: 15\r\n\r\n{"prompt":"hi"}';
    expectClosedAfterFirstAnswer(await exchange(channel.port, upgrade, MALFORMED), 202);
  });
});
