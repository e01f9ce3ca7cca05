import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { storedEvents } from './helpers/audit.js';
import { eventually } from './helpers/agent.js';
import { startTestApp, type TestApp, type TestAppOptions } from './helpers/app.js';
import { createTestDatabase, postgresTestUrl } from './helpers/postgres.js';
import { testRedisUrl, uniquePrefix } from './helpers/redis.js';
import { spawnReplicaChild } from './helpers/replica-child.js';
import { FakeDiscordGateway } from './fakes/discord-gateway.js';
import type { SqliteStorage } from '../src/storage/sqlite/index.js';

/** The Discord connection as the service runs it: wired from the config, under its policy, in diagnostics. */

const TOKEN = 'ODk5.agentd-test-bot-token.never-shown';
const ENV = { DISCORD_BOT_TOKEN: TOKEN };

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function fakeGateway(): Promise<FakeDiscordGateway> {
  const fake = await FakeDiscordGateway.start({ token: TOKEN, heartbeatIntervalMs: 1_000 });
  cleanups.push(() => fake.close());
  return fake;
}

const discordConfig = (fake: FakeDiscordGateway, allowed = true) => ({
  discord: { enabled: true, allowed_users: ['600000000000000001'], api_base_url: fake.apiBaseUrl },
  network: { discord_allowed_hosts: allowed ? [`127.0.0.1:${fake.port}`] : [] },
});

async function app(fake: FakeDiscordGateway, options: TestAppOptions & { allowed?: boolean } = {}): Promise<TestApp> {
  const started = await startTestApp({ env: ENV, ...options, config: { ...discordConfig(fake, options.allowed), ...options.config } as TestAppOptions['config'] });
  cleanups.push(() => started.close());
  return started;
}

async function discordSection(test: TestApp): Promise<{ status: string; checks: { name: string; status: string; summary: string }[] }> {
  const body = (await (await test.request('/api/v1/diagnostics')).json()) as { data: { sections: { key: string; status: string; checks: { name: string; status: string; summary: string }[] }[] } };
  return body.data.sections.find((s) => s.key === 'discord')!;
}

describe('Discord connection in the service', () => {
  it('connects when serving, shows the bot in diagnostics, and closes the socket at shutdown', async () => {
    const fake = await fakeGateway();
    const test = await app(fake);
    await eventually(() => test.app.discordConnection?.status().state === 'connected');
    expect(fake.identifies).toHaveLength(1);
    const section = await discordSection(test);
    expect(section.status).toBe('ok');
    expect(section.checks.find((c) => c.name === 'connection')?.summary).toBe('connected as agentd-bot (900000000000000001) in 1 guild(s)');
    expect(section.checks.find((c) => c.name === 'allowed')?.summary).toBe('guilds: none; channels: none; users: 600000000000000001');
    await eventually(async () => (await discordSection(test)).checks.some((c) => c.name === 'heartbeat'));
    expect(test.log.lines.some((l) => l.includes('discord: connected as agentd-bot'))).toBe(true);

    const events = storedEvents(test.app.storage as SqliteStorage);
    expect(events.filter((e) => e.event_type === 'discord.connect').map((e) => e.result)).toEqual(['allow']);
    await test.close();
    await eventually(() => fake.connected === 0);
    const everything = JSON.stringify([events, test.log.lines, section]);
    expect(everything).not.toContain(TOKEN);
    expect(everything).not.toContain('never-shown');
  });

  it('opens no connection to a host the network policy does not allow, and diagnostics say why', async () => {
    const fake = await fakeGateway();
    const test = await app(fake, { allowed: false });
    await eventually(() => test.app.discordConnection?.status().state === 'failed');
    expect(fake.gatewayBotRequests).toHaveLength(0);
    expect(fake.upgrades).toHaveLength(0);
    const section = await discordSection(test);
    expect(section.status).toBe('error');
    expect(section.checks.find((c) => c.name === 'connection')?.summary).toMatch(/not connected: the network policy does not allow the Discord API at 127\.0\.0\.1/);
    expect(section.checks.find((c) => c.name === 'network_policy')?.status).toBe('error');
  });

  it('refuses to start without the token, naming the variable and nothing else', async () => {
    const home = mkdtempSync(join(tmpdir(), 'agentd-discord-'));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    const fake = await fakeGateway();
    await expect(createApp({ home, env: {}, config: { api: { api_key: 'k', port: 0 }, ...discordConfig(fake) } }))
      .rejects.toThrow('discord.enabled is true but the environment variable DISCORD_BOT_TOKEN (discord.token_env) holding the bot token is not set');
  });
});

describe.skipIf(postgresTestUrl === null || testRedisUrl === undefined)('Discord connection across replicas', () => {
  it('is held by one replica, and taken over within the lease when its holder is killed', async () => {
    const fake = await fakeGateway();
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const redisKeyPrefix = uniquePrefix();
    const config = {
      ...discordConfig(fake),
      storage: { backend: 'postgres' as const, postgres_url: database.url, redis_url: testRedisUrl, redis_key_prefix: redisKeyPrefix },
    };
    const home = mkdtempSync(join(tmpdir(), 'agentd-discord-a-'));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    const a = await spawnReplicaChild({ home, config, apiKey: 'key-a', env: ENV, leases: { sessionLeaseMs: 3_000, heartbeatMs: 500 } });
    cleanups.push(() => a.child.kill('SIGKILL'));
    await eventually(() => fake.identifies.length === 1);

    const b = await app(fake, { config, redisKeyPrefix, sessionLeaseMs: 3_000, heartbeatMs: 500, discordLeaseCheckMs: 300 });
    // B sees the claim held and stays off the Gateway.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(b.app.discordConnection?.status().state).toBe('standby');
    expect(fake.identifies).toHaveLength(1);
    expect(fake.connected).toBe(1);
    expect((await discordSection(b)).checks.find((c) => c.name === 'connection')?.summary).toMatch(/another replica holds/);

    const killedAt = Date.now();
    await a.kill();
    await eventually(() => b.app.discordConnection?.status().state === 'connected', 30_000);
    expect(Date.now() - killedAt).toBeLessThan(30_000);
    expect(fake.identifies).toHaveLength(2);
    expect(fake.connected).toBe(1);
    // Never two sockets at once: the killed holder's socket was gone before the new one opened.
    expect(fake.mostConnected).toBe(1);
  });
});
