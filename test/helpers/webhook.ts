import { request } from 'node:http';
import { createMemoryLogger } from '../../src/log.js';
import { WebhookChannel, type WebhookChannelOptions } from '../../src/channels/webhook/index.js';

/** POST `body` as JSON on a fresh connection and resolve with the status code (the body is discarded). */
export function postStatus(port: number, body: string | Buffer, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1', port, method: 'POST', path: '/', agent: false,
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const tracked: WebhookChannel[] = [];

/** Registers a channel for the next `stopChannels` (call that after each test). */
export function trackChannel(channel: WebhookChannel): WebhookChannel {
  tracked.push(channel);
  return channel;
}

/** A started channel on an ephemeral port with a memory logger, tracked for `stopChannels`. */
export async function startChannel(options: WebhookChannelOptions = {}): Promise<WebhookChannel> {
  const channel = trackChannel(new WebhookChannel({ port: 0, log: createMemoryLogger(), ...options }));
  await channel.start();
  return channel;
}

/** Stops every tracked channel and forgets them. */
export async function stopChannels(): Promise<void> {
  await Promise.all(tracked.splice(0).map((c) => c.stop()));
}
