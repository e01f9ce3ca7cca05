import { connect } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEvent } from '../src/storage/ports/audit.js';
import { createMemoryLogger } from '../src/log.js';
import { computeSignature, type WebhookChannelOptions } from '../src/channels/webhook/index.js';
import { tempAudit, type TempAudit } from './helpers/audit.js';
import { postStatus as post, startChannel as startAnyChannel, stopChannels } from './helpers/webhook.js';

let log: TempAudit;

beforeEach(() => {
  log = tempAudit();
});

afterEach(async () => {
  await stopChannels();
  await log.close();
});

const startChannel = (options: WebhookChannelOptions = {}) => startAnyChannel({ audit: log.audit, ...options });

function events(type?: string): AuditEvent[] {
  return log.events(type);
}

describe('webhook channel audit', () => {
  it('records an accepted request with the sender and prompt length, never the prompt or the signature', async () => {
    const channel = await startChannel({ secret: 'audit-secret' });
    const body = JSON.stringify({ prompt: 'rotate the staging credentials', sender: 'ops-bot' });
    const signature = computeSignature('audit-secret', body);
    expect(await post(channel.port, body, { 'x-service-signature': signature })).toBe(202);

    const [accept, ...rest] = events('webhook.accept');
    expect(rest).toHaveLength(0);
    expect(accept).toMatchObject({
      event_type: 'webhook.accept',
      category: 'webhook',
      result: 'allow',
      subsystem: 'webhook',
      detail: { sender: 'ops-bot', prompt_length: 30, ip: '127.0.0.1' },
    });
    const stored = JSON.stringify(events());
    expect(stored).not.toContain('staging credentials');
    expect(stored).not.toContain(signature.slice('sha256='.length));
  });

  it('records a refusal with its status, reason and client IP', async () => {
    const channel = await startChannel({ secret: 'audit-secret' });
    expect(await post(channel.port, '{"prompt":"x"}', { 'x-service-signature': 'sha256=00' })).toBe(401);
    expect(events('webhook.reject')).toEqual([
      expect.objectContaining({
        category: 'webhook',
        result: 'deny',
        subsystem: 'webhook',
        detail: { status: 401, reason: 'Invalid X-Service-Signature', ip: '127.0.0.1', suppressed_since_last: 0 },
      }),
    ]);
    expect(events('webhook.accept')).toHaveLength(0);
  });

  it('records requests Node could not parse', async () => {
    const channel = await startChannel();
    await new Promise<void>((resolve) => {
      const socket = connect(channel.port, '127.0.0.1', () => socket.write('NOT HTTP\r\n\r\n'));
      socket.on('data', () => {});
      socket.on('close', () => resolve());
      socket.on('error', () => resolve());
    });
    expect(events('webhook.reject').map((e) => e.detail.status)).toEqual([400]);
  });

  it('writes only a few rows for a flood of refusals, and reports how many it skipped', async () => {
    let clock = Date.now();
    const channel = await startChannel({ now: () => clock });
    for (let i = 0; i < 50; i++) {
      expect(await post(channel.port, '{"prompt":"x"}', { 'content-type': 'text/plain' })).toBe(415);
    }
    const flood = events('webhook.reject');
    expect(flood.length).toBeGreaterThan(0);
    expect(flood.length).toBeLessThanOrEqual(3);

    clock += 61_000;
    expect(await post(channel.port, '{"prompt":"x"}', { 'content-type': 'text/plain' })).toBe(415);
    const after = events('webhook.reject');
    expect(after).toHaveLength(flood.length + 1);
    expect(after[after.length - 1]?.detail.suppressed_since_last).toBe(50 - flood.length);
  });

  it('samples per status: a different refusal from the same client is still recorded', async () => {
    const channel = await startChannel();
    for (let i = 0; i < 20; i++) await post(channel.port, '{"prompt":"x"}', { 'content-type': 'text/plain' });
    expect(await post(channel.port, '[]')).toBe(400);
    expect(events('webhook.reject').some((e) => e.detail.status === 400)).toBe(true);
  });

  it('keeps the hash chain valid', async () => {
    const channel = await startChannel();
    await post(channel.port, '{"prompt":"a"}');
    await post(channel.port, 'null');
    log.storage.uow.flush();
    expect(await log.audit.verify()).toMatchObject({ ok: true, count: 2 });
  });

  it('still accepts requests when the audit store fails, and logs the failure', async () => {
    const lines = createMemoryLogger();
    const channel = await startChannel({ log: lines });
    log.storage.database.close();
    expect(await post(channel.port, '{"prompt":"x"}')).toBe(202);
    expect(channel.pending).toBe(1);
    // The write is refused when its batch commits, after the answer.
    for (let i = 0; i < 100 && !lines.lines.some((l) => l.includes('audit write failed')); i++) await new Promise((r) => setTimeout(r, 5));
    expect(lines.lines.some((l) => l.includes('audit write failed'))).toBe(true);
  });
});
