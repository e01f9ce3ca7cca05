import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DiscordMessage } from '../src/channels/discord/gateway/types.js';
import { startFakeDiscordRest, type FakeDiscordRest } from './fakes/discord-rest.js';
import { startTestApp, type TestApp, type TestAppOptions } from './helpers/app.js';
import { createTestDatabase, postgresTestUrl, type TestDatabase } from './helpers/postgres.js';
import { testRedisUrl, uniquePrefix } from './helpers/redis.js';

/**
 * Discord messages on two replicas sharing PostgreSQL and Redis: a message is stored once however
 * many replicas are handed it, and each is run and answered once, in order per channel.
 */
const TOKEN = 'replicas-discord-token';
const BOT = '900000000000000001';
const GUILD = '100000000000000001';
const CHANNEL = '200000000000000001';

describe.skipIf(postgresTestUrl === null || testRedisUrl === undefined)('Discord messages on replicas', () => {
  let database: TestDatabase;
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterEach(async () => {
    for (const fn of cleanups.splice(0).reverse()) await fn();
  });
  afterAll(async () => {
    await database?.drop();
  });

  async function replicas(fake: FakeDiscordRest): Promise<[TestApp, TestApp]> {
    const config = {
      storage: { backend: 'postgres' as const, postgres_url: database.url, redis_url: testRedisUrl },
      discord: { enabled: true, allowed_guilds: [GUILD], respond_to: 'all', api_base_url: fake.baseUrl },
      network: { allowed_hosts: [fake.host] },
    } as TestAppOptions['config'];
    const redisKeyPrefix = uniquePrefix();
    const apps: TestApp[] = [];
    for (let i = 0; i < 2; i++) {
      const t = await startTestApp({ env: { DISCORD_BOT_TOKEN: TOKEN }, redisKeyPrefix, config });
      cleanups.push(() => t.close());
      t.app.discord!.ready({ userId: BOT });
      apps.push(t);
    }
    return apps as [TestApp, TestApp];
  }

  let nextId = 1_250_000_000_000_000_000n;
  const message = (content: string): DiscordMessage => ({
    id: String(nextId++), channel_id: CHANNEL, guild_id: GUILD, author: { id: '300000000000000001' }, content, mentions: [],
  });

  it('stores a message handed to both replicas once, and runs and answers it once', async () => {
    const fake = await startFakeDiscordRest({ token: TOKEN });
    cleanups.push(() => fake.close());
    const [a, b] = await replicas(fake);
    const m = message('what is 9*9?');
    const outcomes = await Promise.all([a.app.discord!.accept(m), b.app.discord!.accept({ ...m })]);
    expect(outcomes.sort()).toEqual(['accepted', 'ignored']);
    const [reply] = await fake.waitForMessages(1);
    expect(reply).toMatchObject({ replyTo: m.id });
    expect(reply!.content).toContain('81');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(fake.messages).toHaveLength(1);
    expect(await a.app.agent.listRuns(`discord:${CHANNEL}`, 10)).toHaveLength(1);
  });

  it('answers a channel\'s messages once each and in order, whichever replica stored them', async () => {
    const fake = await startFakeDiscordRest({ token: TOKEN });
    cleanups.push(() => fake.close());
    const [a, b] = await replicas(fake);
    const messages = [1, 2, 3, 4].map((n) => message(`what is ${n}*11?`));
    for (const [i, m] of messages.entries()) expect(await (i % 2 === 0 ? a : b).app.discord!.accept(m)).toBe('accepted');
    const replies = await fake.waitForMessages(4, 30_000);
    const answerTo = new Map(replies.map((r) => [r.replyTo, r.content]));
    expect(messages.map((m, i) => answerTo.get(m.id)?.includes(String((i + 1) * 11)))).toEqual([true, true, true, true]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(fake.messages).toHaveLength(4);
    // Run in arrival order, never two at once (replies may be posted by either replica).
    const runs = (await a.app.agent.listRuns(`discord:${CHANNEL}`, 10)).filter((r) => r.message.endsWith('*11?')).sort((x, y) => x.created_at.localeCompare(y.created_at));
    expect(runs.map((r) => r.message)).toEqual(messages.map((_, i) => `what is ${i + 1}*11?`));
    for (let i = 1; i < runs.length; i++) expect(runs[i]!.started_at! >= runs[i - 1]!.finished_at!).toBe(true);
  });
});
