import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';
import { startChannel, stopChannels } from './helpers/webhook.js';

/**
 * A HEAD request Node's parser refuses (bad Content-Length, a URL with raw non-ASCII bytes) is
 * answered by the listener with raw bytes. Its answer has the head only: with the envelope's body
 * after it, an HTTP client (Node's here) reads those bytes as garbage after the response and
 * reports a broken connection instead of the 400.
 */
interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function head(port: number, path: string, headers: string[]): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'HEAD', path, agent: false, headers: ['Host', 'x', ...headers] }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => setImmediate(() => resolve({ status: res.statusCode ?? 0, headers: res.headers, body })));
    });
    req.on('error', reject);
    req.end();
  });
}

function expectRefusal(answer: Answer): void {
  expect(answer.status).toBe(400);
  expect(answer.body).toBe('');
  expect(answer.headers['x-content-type-options']).toBe('nosniff');
  expect(answer.headers['x-frame-options']).toBe('DENY');
  expect(answer.headers['cache-control']).toBe('no-store');
  expect(answer.headers.connection).toBe('close');
}

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
  await stopChannels();
});

describe('a HEAD request the parser refuses', () => {
  it('gets a 400 head without a body from the REST listener', async () => {
    t = await startTestApp();
    expectRefusal(await head(t.app.port, '/api/v1/health', ['Authorization', `Bearer ${t.apiKey}`, 'Content-Length', 'abc']));
    expectRefusal(await head(t.app.port, '/api/v1/\u00e9', ['Authorization', `Bearer ${t.apiKey}`]));
  });

  it('gets a 400 head without a body from the webhook listener', async () => {
    const channel = await startChannel({ secret: 's' });
    expectRefusal(await head(channel.port, '/', ['Content-Type', 'application/json', 'Content-Length', '+5']));
    expectRefusal(await head(channel.port, '/\u00e9', []));
  });
});
