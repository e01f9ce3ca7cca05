import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../src/log.js';
import { WebhookChannel, type WebhookChannelOptions } from '../src/channels/webhook/index.js';
import { postStatus as post, startChannel, stopChannels, trackChannel } from './helpers/webhook.js';

afterEach(stopChannels);

describe('webhook idempotency (X-Request-Id)', () => {
  it('answers a repeat within 10 minutes with 202 without queuing a second copy', async () => {
    let clock = 1_700_000_000_000;
    const channel = await startChannel({ idempotency: true, now: () => clock });
    const id = { 'x-request-id': 'delivery-7' };
    expect(await post(channel.port, '{"prompt":"build"}', id)).toBe(202);
    clock += 9 * 60_000;
    expect(await post(channel.port, '{"prompt":"build"}', id)).toBe(202);
    expect(channel.pending).toBe(1);
    clock += 60_000;
    expect(await post(channel.port, '{"prompt":"build"}', id)).toBe(202);
    expect(channel.pending).toBe(2);
  });

  it('queues requests with different ids, or none', async () => {
    const channel = await startChannel({ idempotency: true });
    await post(channel.port, '{"prompt":"a"}', { 'x-request-id': 'one' });
    await post(channel.port, '{"prompt":"b"}', { 'x-request-id': 'two' });
    await post(channel.port, '{"prompt":"c"}');
    await post(channel.port, '{"prompt":"c"}');
    expect(channel.pending).toBe(4);
  });

  it('is off by default: a repeated id is queued again', async () => {
    const channel = await startChannel();
    await post(channel.port, '{"prompt":"a"}', { 'x-request-id': 'same' });
    await post(channel.port, '{"prompt":"a"}', { 'x-request-id': 'same' });
    expect(channel.pending).toBe(2);
  });

  it('keeps each sender\'s ids its own: another sender\'s message under the same id is queued', async () => {
    const channel = await startChannel({ idempotency: true });
    const id = { 'x-request-id': 'deploy-42' };
    expect(await post(channel.port, '{"prompt":"deploy api","sender":"alice"}', id)).toBe(202);
    expect(await post(channel.port, '{"prompt":"restart db","sender":"bob"}', id)).toBe(202);
    // A Cyrillic "а" is stripped from the sender ("lice"), so it is not alice either.
    expect(await post(channel.port, '{"prompt":"look-alike","sender":"\u0430lice"}', id)).toBe(202);
    // Ids are compared exactly.
    expect(await post(channel.port, '{"prompt":"deploy api","sender":"alice"}', { 'x-request-id': 'Deploy-42' })).toBe(202);
    expect([channel.receive(), channel.receive(), channel.receive(), channel.receive()].map((m) => [m?.sender, m?.content])).toEqual([
      ['alice', 'deploy api'], ['bob', 'restart db'], ['lice', 'look-alike'], ['alice', 'deploy api'],
    ]);
  });

  it('answers a sender\'s repeated id with another prompt 409 AGENTD_IDEMPOTENCY_CONFLICT, and queues nothing for it', async () => {
    const channel = await startChannel({ idempotency: true });
    const id = { 'x-request-id': 'deploy-42' };
    expect(await post(channel.port, '{"prompt":"deploy api","sender":"alice"}', id)).toBe(202);
    const conflict = await fetch(`http://127.0.0.1:${channel.port}/`, {
      method: 'POST', headers: { 'content-type': 'application/json', ...id }, body: '{"prompt":"drop the database","sender":"alice"}',
    });
    expect(conflict.status).toBe(409);
    expect(await conflict.json()).toEqual({
      status: 'error', error: 'X-Request-Id was already used by this sender with a different prompt', code: 'AGENTD_IDEMPOTENCY_CONFLICT',
    });
    // The same prompt again (JSON spelled differently) is a retry.
    expect(await post(channel.port, '{ "sender": "alice", "prompt": "deploy api" }', id)).toBe(202);
    expect(channel.pending).toBe(1);
  });

  it('does not remember an id whose request was refused', async () => {
    const channel = await startChannel({ idempotency: true });
    expect(await post(channel.port, '{"prompt":""}', { 'x-request-id': 'r1' })).toBe(400);
    expect(await post(channel.port, '{"prompt":"fixed"}', { 'x-request-id': 'r1' })).toBe(202);
    expect(channel.receive()?.content).toBe('fixed');
  });
});

describe('webhook start-up warnings and logging', () => {
  it('warns when no secret is set and the listener is not on loopback', async () => {
    const log = createMemoryLogger();
    await startChannel({ host: '0.0.0.0', log });
    expect(log.lines.filter((l) => l.includes(' warn ') && l.includes('no secret'))).toHaveLength(1);
  });

  it('does not warn on 127.0.0.1', async () => {
    const log = createMemoryLogger();
    await startChannel({ host: '127.0.0.1', log });
    expect(log.lines.filter((l) => l.includes(' warn '))).toEqual([]);
  });

  // Anything but 127.0.0.1 (docs/decisions.md#only-127001-counts-as-unexposed): other loopback spellings are warned about too.
  it.each(['localhost', '::1'])('warns without a secret on %s', async (host) => {
    const log = createMemoryLogger();
    await startChannel({ host, log });
    const warnings = log.lines.filter((l) => l.includes(' warn ') && l.includes('no secret'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(host);
  });

  it('does not warn about exposure when a secret is set, and never logs the secret', async () => {
    const log = createMemoryLogger();
    await startChannel({ host: '0.0.0.0', secret: 'plain-words-secret', log });
    expect(log.lines.filter((l) => l.includes('no secret'))).toEqual([]);
    expect(log.lines.join('\n')).not.toContain('plain-words-secret');
  });

  it('warns that X-Forwarded-For is client-controlled when trustProxy is on', async () => {
    const log = createMemoryLogger();
    await startChannel({ trustProxy: true, log });
    expect(log.lines.some((l) => l.includes(' warn ') && l.includes('X-Forwarded-For'))).toBe(true);
  });

  it('send() logs the reply length, not the reply', async () => {
    const log = createMemoryLogger();
    const channel = await startChannel({ log });
    channel.send('the deployment finished without errors');
    expect(log.lines.some((l) => l.includes('38 characters'))).toBe(true);
    expect(log.lines.join('\n')).not.toContain('deployment');
  });
});

describe('webhook channel lifecycle and options', () => {
  it('reports the configured port before start and the bound port after', async () => {
    const channel = new WebhookChannel({ port: 0, log: createMemoryLogger() });
    trackChannel(channel);
    expect(channel.port).toBe(0);
    await channel.start();
    expect(channel.port).toBeGreaterThan(0);
    expect(new WebhookChannel({ log: createMemoryLogger() }).port).toBe(9090);
  });

  it('refuses a second start, and stop() is safe to call twice', async () => {
    const channel = await startChannel();
    await expect(channel.start()).rejects.toThrow(/already started/);
    await channel.stop();
    await channel.stop();
    await expect(post(channel.port, '{"prompt":"x"}')).rejects.toThrow();
  });

  it('rejects start() when the port is taken', async () => {
    const first = await startChannel();
    const second = new WebhookChannel({ port: first.port, log: createMemoryLogger() });
    await expect(second.start()).rejects.toMatchObject({ code: 'EADDRINUSE' });
  });

  it('stamps each message with the arrival time from the clock, in ISO 8601 UTC', async () => {
    let clock = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
    const channel = await startChannel({ now: () => clock });
    await post(channel.port, '{"prompt":"a"}');
    await post(channel.port, '{"prompt":"b"}');
    clock += 1;
    await post(channel.port, '{"prompt":"c"}');
    expect([channel.receive(), channel.receive(), channel.receive()].map((m) => m?.received_at)).toEqual([
      '2026-01-02T03:04:05.678Z',
      '2026-01-02T03:04:05.678Z',
      '2026-01-02T03:04:05.679Z',
    ]);
  });

  it('receive() returns undefined at once when nothing is queued', async () => {
    const channel = await startChannel();
    expect(channel.receive()).toBeUndefined();
  });

  it.each([
    [{ port: -1 }, RangeError],
    [{ port: 65_536 }, RangeError],
    [{ port: 1.5 }, RangeError],
    [{ host: '' }, TypeError],
    [{ rateLimitPerMinute: 0 }, RangeError],
    [{ rateLimitPerMinute: Number.NaN }, RangeError],
    [{ bodyTimeoutMs: 0 }, RangeError],
  ] as [WebhookChannelOptions, ErrorConstructor][])('refuses %j', (options, errorType) => {
    expect(() => new WebhookChannel(options)).toThrow(errorType);
  });
});
