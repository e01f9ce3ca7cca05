import { sign, verify } from '@octokit/webhooks-methods';
import { afterEach, describe, expect, it } from 'vitest';
import { computeSignature, WebhookChannel } from '../src/channels/webhook/index.js';
import { postStatus as post, startChannel, stopChannels } from './helpers/webhook.js';

// Signatures are checked against an independent HMAC-SHA256 implementation (GitHub's webhook
// signing library produces the same `sha256=<hex>` shape), in both directions.

afterEach(stopChannels);

const secret = 'It’s a Secret to Everybody';
const bodies = [
  '{"prompt":"Hello, World!"}',
  JSON.stringify({ prompt: 'ünïcödé ✓ 🚀', sender: 'release-bot' }),
  JSON.stringify({ prompt: 'x'.repeat(20_000) }),
];

describe('webhook signatures against an independent implementation', () => {
  it.each(bodies.map((b) => [b.slice(0, 30), b]))('accepts a body signed by the reference library (%s…)', async (_label, body) => {
    const channel = await startChannel({ secret });
    expect(await post(channel.port, body, { 'x-service-signature': await sign(secret, body) })).toBe(202);
    expect(channel.receive()?.content).toBe((JSON.parse(body) as { prompt: string }).prompt);
  });

  it.each(bodies.map((b) => [b.slice(0, 30), b]))('computes the same signature as the reference library (%s…)', async (_label, body) => {
    const ours = computeSignature(secret, body);
    expect(ours).toBe(await sign(secret, body));
    expect(await verify(secret, body, ours)).toBe(true);
  });

  it('refuses a reference signature made with a different secret', async () => {
    const channel = await startChannel({ secret });
    const body = bodies[0] as string;
    expect(await post(channel.port, body, { 'x-service-signature': await sign('not the secret', body) })).toBe(401);
  });

  it('signs the raw bytes: re-serialised JSON with the same meaning does not verify', async () => {
    const channel = await startChannel({ secret });
    const signed = '{"prompt":"Hello, World!"}';
    const sent = '{ "prompt": "Hello, World!" }';
    expect(await post(channel.port, sent, { 'x-service-signature': await sign(secret, signed) })).toBe(401);
  });
});

describe('webhook signatures with requireTimestamp', () => {
  const T = 1_700_000_000;
  const signed = (body: string, timestamp: number) => ({
    'x-service-timestamp': String(timestamp),
    'x-service-signature': computeSignature(secret, body, String(timestamp)),
  });

  it('signs "<timestamp>.<body>", the same as the reference library over that string', async () => {
    const body = bodies[0] as string;
    expect(computeSignature(secret, body, String(T))).toBe(await sign(secret, `${T}.${body}`));
  });

  it('accepts a fresh timestamped signature', async () => {
    const channel = await startChannel({ secret, requireTimestamp: true, now: () => T * 1000 });
    const body = '{"prompt":"deploy"}';
    expect(await post(channel.port, body, signed(body, T - 10))).toBe(202);
  });

  it('401 without a timestamp, or with a signature over the body alone', async () => {
    const channel = await startChannel({ secret, requireTimestamp: true, now: () => T * 1000 });
    const body = '{"prompt":"deploy"}';
    expect(await post(channel.port, body, { 'x-service-signature': computeSignature(secret, body) })).toBe(401);
    expect(
      await post(channel.port, body, { 'x-service-timestamp': String(T), 'x-service-signature': computeSignature(secret, body) }),
    ).toBe(401);
  });

  it('401 when the timestamp is more than 300 s away, either way', async () => {
    const channel = await startChannel({ secret, requireTimestamp: true, now: () => T * 1000 });
    const body = '{"prompt":"deploy"}';
    expect(await post(channel.port, body, signed(body, T - 301))).toBe(401);
    expect(await post(channel.port, body, signed(body, T + 301))).toBe(401);
    expect(await post(channel.port, body, signed(body, T + 300))).toBe(202);
  });

  it('401 when the timestamp header was changed after signing', async () => {
    const channel = await startChannel({ secret, requireTimestamp: true, now: () => T * 1000 });
    const body = '{"prompt":"deploy"}';
    const headers = { ...signed(body, T - 100), 'x-service-timestamp': String(T) };
    expect(await post(channel.port, body, headers)).toBe(401);
  });

  it('409 for a replay of an accepted request within the window', async () => {
    let clock = T * 1000;
    const channel = await startChannel({ secret, requireTimestamp: true, now: () => clock });
    const body = '{"prompt":"deploy"}';
    const headers = signed(body, T);
    expect(await post(channel.port, body, headers)).toBe(202);
    clock += 60_000;
    expect(await post(channel.port, body, headers)).toBe(409);
    expect(channel.pending).toBe(1);
    clock += 300_000;
    // Past the window the skew check refuses it; the replay memory is no longer needed.
    expect(await post(channel.port, body, headers)).toBe(401);
  });

  it('a request refused for a full queue can be retried with the same signature', async () => {
    const channel = await startChannel({ secret, requireTimestamp: true, rateLimitPerMinute: 1e9, now: () => T * 1000 });
    for (let i = 0; i < 1000; i++) {
      const body = JSON.stringify({ prompt: `fill ${i}` });
      expect(await post(channel.port, body, signed(body, T))).toBe(202);
    }
    const body = '{"prompt":"late"}';
    const headers = signed(body, T);
    expect(await post(channel.port, body, headers)).toBe(503);
    channel.receive();
    expect(await post(channel.port, body, headers)).toBe(202);
  });

  it('cannot be turned on without a secret', () => {
    expect(() => new WebhookChannel({ requireTimestamp: true })).toThrow(/secret/);
  });
});
