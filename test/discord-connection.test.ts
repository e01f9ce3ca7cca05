import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DiscordConnection } from '../src/channels/discord/gateway/connection.js';
import { INTENTS } from '../src/channels/discord/gateway/protocol.js';
import type { DiscordMessage } from '../src/channels/discord/gateway/types.js';
import { Gateway } from '../src/gateway/index.js';
import { NetworkPolicy } from '../src/policy/network-policy.js';
import { FakeDiscordGateway } from './fakes/discord-gateway.js';
import { tempAudit, type TempAudit } from './helpers/audit.js';
import { collectingLogger } from './helpers/log.js';

/**
 * The Discord Gateway client against a fake Gateway on 127.0.0.1 speaking real WebSocket frames,
 * through a real outbound gateway under a real network policy, audited into a real SQLite file.
 */

const TOKEN = 'MTIzNDU2Nzg5.fake-bot-token.kept-secret';
const USER = '900000000000000001';

let fake: FakeDiscordGateway;
let audit: TempAudit;
let gateway: Gateway;
let lines: string[];
let connection: DiscordConnection | null;
let messages: DiscordMessage[];
let readies: { userId: string; username: string; guildCount: number }[];

function message(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { id, channel_id: '700000000000000001', guild_id: '800000000000000001', author: { id: '600000000000000001', username: 'ada', avatar: 'x' }, content: `hello ${id}`, mentions: [{ id: USER, username: 'bot' }], tts: false, ...extra };
}

async function connect(options: { token?: string; allowed?: boolean; random?: () => number } = {}): Promise<DiscordConnection> {
  const policy = NetworkPolicy.fromConfig({ discord_allowed_hosts: options.allowed === false ? [] : [`127.0.0.1:${fake.port}`] });
  gateway = new Gateway({ policy, audit: audit.audit, log: collectingLogger(lines) });
  connection = new DiscordConnection({
    token: options.token ?? TOKEN, apiBaseUrl: fake.apiBaseUrl, network: gateway, audit: audit.audit, log: collectingLogger(lines),
    events: { ready: (info) => readies.push(info), message: (msg) => messages.push(msg) },
    backoff: { initialMs: 20, maxMs: 100 }, random: options.random,
  });
  connection.start();
  return connection;
}

async function until(predicate: () => boolean, timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  while (!predicate()) {
    if (Date.now() - started > timeoutMs) throw new Error(`condition not met in time; status ${JSON.stringify(connection?.status())}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

beforeEach(async () => {
  fake = await FakeDiscordGateway.start({ token: TOKEN, heartbeatIntervalMs: 200, guildIds: ['800000000000000001', '800000000000000002'] });
  audit = tempAudit();
  lines = [];
  messages = [];
  readies = [];
  connection = null;
});

afterEach(async () => {
  await connection?.stop();
  await gateway?.close();
  await fake.close();
  await audit.close();
});

describe('Discord Gateway connection', () => {
  it('asks /gateway/bot with the bot token, identifies with the four intents, and reports READY', async () => {
    await connect();
    await until(() => readies.length === 1);
    expect(fake.gatewayBotRequests[0]?.authorization).toBe(`Bot ${TOKEN}`);
    expect(fake.identifies).toEqual([{ token: TOKEN, intents: INTENTS }]);
    expect(INTENTS).toBe(1 + 512 + 4096 + 32768);
    expect(fake.upgrades[0]?.url).toBe('/?v=10&encoding=json');
    expect(readies[0]).toEqual({ userId: USER, username: 'agentd-bot', guildCount: 2 });
    expect(connection!.status()).toMatchObject({ state: 'connected', lastError: null, user: { id: USER, username: 'agentd-bot' }, guildCount: 2 });
    const connects = audit.events('discord.connect');
    expect(connects.map((e) => [e.result, e.detail.host, e.detail.resume])).toEqual([['allow', '127.0.0.1', false]]);
  });

  it('hands over messages narrowed to the agreed fields and drops malformed ones', async () => {
    await connect();
    await until(() => readies.length === 1);
    fake.dispatch('MESSAGE_CREATE', message('1001'));
    fake.dispatch('MESSAGE_CREATE', { ...message('1002'), channel_id: '__proto__' });
    fake.dispatch('MESSAGE_CREATE', message('1003', { guild_id: undefined, author: { id: '600000000000000002', bot: true } }));
    await until(() => messages.length === 2);
    expect(messages[0]).toEqual({
      id: '1001', channel_id: '700000000000000001', guild_id: '800000000000000001',
      author: { id: '600000000000000001', username: 'ada' }, content: 'hello 1001', mentions: [{ id: USER }],
    });
    expect(messages[1]).toEqual({ id: '1003', channel_id: '700000000000000001', author: { id: '600000000000000002', bot: true }, content: 'hello 1003', mentions: [{ id: USER }] });
    expect(lines.some((l) => l.includes('ignored a MESSAGE_CREATE') && !l.includes('hello 1002'))).toBe(true);
  });

  it('heartbeats at the hello interval and measures the latency', async () => {
    await connect();
    await until(() => fake.heartbeats >= 3);
    await until(() => connection!.status().heartbeatLatencyMs !== null);
    expect(connection!.status().heartbeatLatencyMs).toBeGreaterThanOrEqual(0);
    expect(connection!.status().heartbeatLatencyMs).toBeLessThan(200);
  });

  it('closes a connection whose heartbeats go unacknowledged and resumes the session on the resume address', async () => {
    await connect();
    await until(() => readies.length === 1 && fake.heartbeats >= 1);
    fake.ackHeartbeats = false;
    fake.dispatch('MESSAGE_CREATE', message('2001'));
    await until(() => fake.resumes.length === 1, 5000);
    fake.ackHeartbeats = true;
    expect(fake.upgrades.at(-1)?.url).toBe('/resumed?v=10&encoding=json');
    expect(fake.identifies).toHaveLength(1);
    expect(fake.resumes[0]!.seq).toBe(2);
    await until(() => connection!.status().state === 'connected');
    expect(lines.some((l) => l.includes('did not acknowledge the last heartbeat'))).toBe(true);
  });

  it('resumes a dropped socket and receives the messages sent meanwhile exactly once', async () => {
    await connect();
    await until(() => readies.length === 1);
    fake.dispatch('MESSAGE_CREATE', message('3001'));
    await until(() => messages.length === 1);
    fake.drop();
    fake.dispatch('MESSAGE_CREATE', message('3002'));
    fake.dispatch('MESSAGE_CREATE', message('3003'));
    await until(() => messages.length === 3);
    expect(messages.map((m) => m.id)).toEqual(['3001', '3002', '3003']);
    expect(fake.resumes).toHaveLength(1);
    expect(fake.identifies).toHaveLength(1);
    fake.dispatch('MESSAGE_CREATE', message('3004'));
    await until(() => messages.length === 4);
    expect(messages.map((m) => m.id)).toEqual(['3001', '3002', '3003', '3004']);
    expect(audit.events('discord.connect').map((e) => e.detail.resume)).toEqual([false, true]);
  });

  it('resumes on the Gateway address when the policy does not allow the resume address', async () => {
    await fake.close();
    fake = await FakeDiscordGateway.start({ token: TOKEN, heartbeatIntervalMs: 200, resumeHost: 'localhost' });
    await connect();
    await until(() => readies.length === 1);
    fake.drop();
    fake.dispatch('MESSAGE_CREATE', message('4001'));
    await until(() => messages.length === 1);
    expect(fake.resumes).toHaveLength(1);
    expect(fake.upgrades.map((u) => u.url)).toEqual(['/?v=10&encoding=json', '/?v=10&encoding=json']);
    expect(audit.events('discord.connect').map((e) => [e.result, e.detail.host])).toEqual([['allow', '127.0.0.1'], ['deny', 'localhost'], ['allow', '127.0.0.1']]);
    expect(lines.some((l) => l.includes('the resume address localhost is not allowed'))).toBe(true);
  });

  it('resumes on op 7 (reconnect) and on a resumable invalid session', async () => {
    await connect();
    await until(() => readies.length === 1);
    fake.reconnect();
    await until(() => fake.resumes.length === 1);
    await until(() => connection!.status().state === 'connected' && fake.connected === 1);
    fake.invalidSession(true);
    await until(() => fake.resumes.length === 2);
    expect(fake.identifies).toHaveLength(1);
  });

  it('identifies afresh 1 to 5 seconds after a session that cannot be resumed', async () => {
    await connect({ random: () => 0 });
    await until(() => readies.length === 1);
    const invalidatedAt = Date.now();
    fake.invalidSession(false);
    await until(() => fake.identifies.length === 2);
    const waited = Date.now() - invalidatedAt;
    expect(waited).toBeGreaterThanOrEqual(950);
    expect(waited).toBeLessThan(5000);
    expect(fake.resumes).toHaveLength(0);
    await until(() => readies.length === 2);
  });

  it('stops for good on 4004 (authentication failed) with a clear last error', async () => {
    await connect();
    await until(() => readies.length === 1);
    const upgrades = fake.upgrades.length;
    fake.closeWith(4004);
    await until(() => connection!.status().state === 'failed');
    expect(connection!.status().lastError).toMatch(/4004: authentication failed/);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(fake.upgrades.length).toBe(upgrades);
    const stopped = audit.events('discord.connect').filter((e) => e.result === 'error');
    expect(stopped).toHaveLength(1);
    expect(stopped[0]!.detail.reason).toMatch(/4004/);
  });

  it.each([4010, 4011, 4012, 4013, 4014])('does not reconnect after close code %i', async (code) => {
    await connect();
    await until(() => readies.length === 1);
    fake.closeWith(code);
    await until(() => connection!.status().state === 'failed');
    expect(connection!.status().lastError).toContain(String(code));
    expect(fake.upgrades).toHaveLength(1);
  });

  it('reconnects with back-off after other close codes, identifying afresh after 4009', async () => {
    await connect();
    await until(() => readies.length === 1);
    fake.closeWith(4009);
    await until(() => fake.identifies.length === 2);
    expect(fake.resumes).toHaveLength(0);
    fake.closeWith(4000);
    await until(() => fake.resumes.length === 1);
  });

  it('refuses a token Discord rejects without retrying', async () => {
    await connect({ token: 'not-the-token' });
    await until(() => connection!.status().state === 'failed');
    expect(connection!.status().lastError).toMatch(/authentication failed.*401/);
    expect(fake.upgrades).toHaveLength(0);
  });

  it('opens nothing when the network policy does not allow the host, and says why', async () => {
    await connect({ allowed: false });
    await until(() => connection!.status().state === 'failed');
    expect(fake.gatewayBotRequests).toHaveLength(0);
    expect(fake.upgrades).toHaveLength(0);
    expect(connection!.status().lastError).toMatch(/network policy does not allow the Discord API at 127\.0\.0\.1/);
    // The refusal, then the stop it caused.
    expect(audit.events('discord.connect').map((e) => [e.result, e.detail.host ?? null])).toEqual([['deny', '127.0.0.1'], ['error', null]]);
    expect(audit.events('network_denied')[0]?.detail).toMatchObject({ category: 'discord' });
  });

  it('never writes the token to the audit log, the log or the status', async () => {
    await connect();
    await until(() => readies.length === 1);
    fake.closeWith(4004);
    await until(() => connection!.status().state === 'failed');
    const everything = JSON.stringify([audit.events(), lines, connection!.status()]);
    expect(everything).not.toContain(TOKEN);
    expect(everything).not.toContain('kept-secret');
    expect(audit.events('network_request').length).toBeGreaterThanOrEqual(2);
  });
});
