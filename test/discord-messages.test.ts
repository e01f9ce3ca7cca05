import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import type { ConfigInput } from '../src/config/schema.js';
import { createMemoryLogger } from '../src/log.js';
import type { DiscordMessage } from '../src/channels/discord/gateway/types.js';
import { SqliteStorage } from '../src/storage/sqlite/index.js';
import { startFakeDiscordRest, type FakeDiscordRest } from './fakes/discord-rest.js';
import { startFakeOpenAI } from './fakes/openai-server.js';
import { eventually, json, postJson } from './helpers/agent.js';
import { startTestApp, type TestApp, type TestAppOptions } from './helpers/app.js';
import { storedEvents } from './helpers/audit.js';

/**
 * The message side of the Discord channel end to end: the real app on SQLite, its runs, the
 * outbound gateway under the network policy, `@discordjs/rest`, and a fake Discord REST API on
 * 127.0.0.1. Messages are handed to the channel as the connection hands them over.
 */
const TOKEN = 'MTAxNTk.fake-bot-token.Zx9_secret-part-0123456789';
const BOT = '900000000000000001';
const GUILD = '100000000000000001';
const CHANNEL = '200000000000000001';
const USER = '300000000000000001';
const DM_CHANNEL = '200000000000000099';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function fakeDiscord(token = TOKEN): Promise<FakeDiscordRest> {
  const fake = await startFakeDiscordRest({ token });
  cleanups.push(() => fake.close());
  return fake;
}

interface AppOptions { discord?: Record<string, unknown>; config?: TestAppOptions['config']; env?: Record<string, string>; allowHost?: boolean; home?: string }

function discordConfig(fake: FakeDiscordRest, options: AppOptions): TestAppOptions['config'] {
  return {
    discord: { enabled: true, allowed_guilds: [GUILD], allowed_channels: [CHANNEL], allowed_users: [USER], api_base_url: fake.baseUrl, ...options.discord },
    network: { allowed_hosts: options.allowHost === false ? [] : [fake.host] },
    ...options.config,
  } as TestAppOptions['config'];
}

async function app(fake: FakeDiscordRest, options: AppOptions = {}): Promise<TestApp> {
  const t = await startTestApp({ env: options.env ?? { DISCORD_BOT_TOKEN: TOKEN }, home: options.home, config: discordConfig(fake, options) });
  cleanups.push(() => t.close());
  t.app.discord!.ready({ userId: BOT });
  return t;
}

let nextMessageId = 1_250_000_000_000_000_000n;
function mention(content: string, extra: Partial<DiscordMessage> = {}): DiscordMessage {
  return {
    id: String(nextMessageId++), channel_id: CHANNEL, guild_id: GUILD, author: { id: USER, username: 'alice' },
    content: `<@${BOT}> ${content}`, mentions: [{ id: BOT }], ...extra,
  };
}

const audit = (t: TestApp, type: string) => storedEvents(t.app.storage as SqliteStorage, type);

async function metric(t: TestApp, name: string, result: string): Promise<number> {
  const text = await (await t.request('/metrics')).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{result="${result}"}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('Discord messages', () => {
  it('answers a mention as a reply, after "typing…", on the channel session, every call through the gateway', async () => {
    const fake = await fakeDiscord();
    const t = await app(fake);
    const message = mention('what is 6*7?');
    expect(await t.app.discord!.accept(message)).toBe('accepted');

    const [reply] = await fake.waitForMessages(1);
    expect(reply).toMatchObject({ channel_id: CHANNEL, replyTo: message.id, allowed_mentions: { parse: [], replied_user: true } });
    expect(reply!.content).toContain('42');
    // "Typing…" went out first, to the same channel, with the bot token.
    const typing = fake.requests.find((r) => r.path === `/channels/${CHANNEL}/typing`);
    expect(typing?.authorization).toBe(`Bot ${TOKEN}`);
    expect(typing!.at).toBeLessThanOrEqual(reply!.at);

    const runs = await t.app.agent.listRuns(`discord:${CHANNEL}`, 10);
    expect(runs.map((r) => [r.source, r.status])).toEqual([['discord', 'complete']]);

    await eventually(() => audit(t, 'discord.reply').length === 1);
    const [accepted] = audit(t, 'discord.message');
    expect(accepted).toMatchObject({ result: 'allow', session_id: `discord:${CHANNEL}`, detail: { message_id: message.id, channel_id: CHANNEL, author_id: USER } });
    expect(JSON.stringify(accepted)).not.toContain('6*7');
    expect(audit(t, 'discord.reply')[0]).toMatchObject({ result: 'allow', task_id: runs[0]!.run_id, detail: { message_id: message.id, parts: 1 } });
    // Each REST call was a network request the gateway allowed and audited under category discord.
    const network = audit(t, 'network_request').filter((e) => e.category === 'discord' || e.detail.category === 'discord');
    expect(network.length).toBeGreaterThanOrEqual(2);
    expect(network.every((e) => e.result === 'allow')).toBe(true);
    expect(await metric(t, 'agentd_discord_messages_total', 'accepted')).toBe(1);
    expect(await metric(t, 'agentd_discord_replies_total', 'posted')).toBe(1);
  });

  it('ignores unlisted users and channels, other guilds, bots, itself and messages without a mention, auditing them (but its own posts) without their text', async () => {
    const fake = await fakeDiscord();
    const t = await app(fake);
    const ignored: [DiscordMessage, string][] = [
      [mention('secret-a', { author: { id: '300000000000000002' } }), 'user'],
      [mention('secret-b', { channel_id: '200000000000000002' }), 'channel'],
      [mention('secret-c', { guild_id: '100000000000000002' }), 'guild'],
      [mention('secret-d', { author: { id: '300000000000000003', bot: true } }), 'bot'],
      [mention('secret-f', { content: 'no mention here secret-f', mentions: [] }), 'no_mention'],
    ];
    for (const [message] of ignored) expect(await t.app.discord!.accept(message)).toBe('ignored');
    // Its own posts coming back are ignored without a row or a count.
    expect(await t.app.discord!.accept(mention('secret-e', { author: { id: BOT, bot: true } }))).toBe('ignored');
    const denied = await eventually(() => {
      const rows = audit(t, 'discord.message');
      return rows.length === ignored.length ? rows : undefined;
    });
    expect(denied.map((e) => [e.result, e.detail.reason, e.detail.message_id])).toEqual(ignored.map(([m, reason]) => ['deny', reason, m.id]));
    expect(JSON.stringify(denied)).not.toMatch(/secret-/);
    expect((await t.app.agent.listAllRuns({ limit: 10, offset: 0 })).runs).toEqual([]);
    expect(await metric(t, 'agentd_discord_messages_total', 'ignored')).toBe(ignored.length);
    // Nothing was posted, not even "typing…" (the connection's own `GET /gateway/bot` is not a post).
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(fake.requests.filter((r) => r.path !== '/gateway/bot')).toEqual([]);
  });

  it('answers a direct message from an allowed user without a mention, on the user session with session_per: user', async () => {
    const fake = await fakeDiscord();
    const t = await app(fake, { discord: { session_per: 'user' } });
    const dm: DiscordMessage = { id: String(nextMessageId++), channel_id: DM_CHANNEL, author: { id: USER }, content: 'what is 2+3?', mentions: [] };
    expect(await t.app.discord!.accept(dm)).toBe('accepted');
    const [reply] = await fake.waitForMessages(1);
    expect(reply).toMatchObject({ channel_id: DM_CHANNEL, replyTo: dm.id });
    expect(reply!.content).toContain('5');
    expect((await t.app.agent.listRuns(`discord:${USER}`, 10)).map((r) => r.status)).toEqual(['complete']);
  });

  it('runs a message replayed by a resumed connection once', async () => {
    const fake = await fakeDiscord();
    const t = await app(fake);
    const message = mention('what is 1+1?');
    expect(await t.app.discord!.accept(message)).toBe('accepted');
    expect(await t.app.discord!.accept({ ...message })).toBe('ignored');
    await fake.waitForMessages(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(fake.messages).toHaveLength(1);
    expect(await t.app.agent.listRuns(`discord:${CHANNEL}`, 10)).toHaveLength(1);
    await eventually(() => audit(t, 'discord.message').some((e) => e.detail.reason === 'duplicate'));
  });

  it('runs a channel\'s messages one at a time, in order, and posts their replies in that order', async () => {
    const fake = await fakeDiscord();
    const t = await app(fake);
    const messages = [1, 2, 3, 4].map((n) => mention(`what is ${n}*10?`));
    for (const m of messages) await t.app.discord!.accept(m);
    const replies = await fake.waitForMessages(4);
    expect(replies.map((r) => r.replyTo)).toEqual(messages.map((m) => m.id));
    expect(replies.map((r, i) => r.content.includes(String((i + 1) * 10)))).toEqual([true, true, true, true]);
    const runs = await t.app.agent.listRuns(`discord:${CHANNEL}`, 10);
    // Never two at once: each started after the previous one finished.
    const ordered = [...runs].sort((a, b) => a.created_at.localeCompare(b.created_at));
    for (let i = 1; i < ordered.length; i++) expect(ordered[i]!.started_at! >= ordered[i - 1]!.finished_at!).toBe(true);
  });

  it('splits a long answer into replies of at most 2,000 characters with code blocks kept whole, with discord.provider', async () => {
    const llm = await startFakeOpenAI();
    cleanups.push(() => llm.close());
    const code = Array.from({ length: 120 }, (_, i) => `print("line ${i} of the listing")  # ${'-'.repeat(i % 25)}`).join('\n');
    const answer = `Here is the script:\n\`\`\`python\n${code}\n\`\`\`\nThat is all.`;
    llm.enqueue({ text: answer });
    const fake = await fakeDiscord();
    const t = await app(fake, {
      env: { DISCORD_BOT_TOKEN: TOKEN, OPENAI_API_KEY: 'sk-test-openai-0123456789abcdefghij' },
      discord: { provider: 'openai' },
      config: { providers: { openai: { api_key_env: 'OPENAI_API_KEY', model: 'gpt-4.1-mini', base_url: llm.baseUrl } }, network: { allowed_hosts: [fake.host, llm.host] } },
    });
    const message = mention('write me a script');
    await t.app.discord!.accept(message);
    const parts = await eventually(async () => {
      await new Promise((resolve) => setTimeout(resolve, 100));
      return audit(t, 'discord.reply').length === 1 ? fake.messages : undefined;
    });
    expect(parts.length).toBeGreaterThan(2);
    expect(parts[0]!.replyTo).toBe(message.id);
    expect(parts.slice(1).every((p) => p.replyTo === null)).toBe(true);
    for (const part of parts) {
      expect(part.content.length).toBeLessThanOrEqual(2000);
      expect(part.content.split('\n').filter((l) => l.startsWith('```')).length % 2).toBe(0);
    }
    expect(parts[1]!.content.startsWith('```python\n')).toBe(true);
    expect(parts.at(-1)!.content.endsWith('That is all.')).toBe(true);
    expect((await t.app.agent.listRuns(`discord:${CHANNEL}`, 1))[0]).toMatchObject({ resolved_provider: 'openai', source: 'discord' });
  });

  it.each([false, true])('waits out a 429 with retry_after (global: %s) and posts the reply after it, not dropping it', async (global) => {
    const fake = await fakeDiscord();
    fake.rateLimit('messages', 1, 1, global);
    const t = await app(fake);
    await t.app.discord!.accept(mention('what is 3*3?'));
    const [reply] = await fake.waitForMessages(1);
    const limited = fake.requests.find((r) => r.status === 429)!;
    expect(limited.path).toBe(`/channels/${CHANNEL}/messages`);
    expect(reply!.at - limited.at).toBeGreaterThanOrEqual(950);
    expect(reply!.content).toContain('9');
    expect(fake.messages).toHaveLength(1);
    expect(await metric(t, 'agentd_discord_replies_total', 'posted')).toBe(1);
  });

  it('records a reply that cannot be posted after retries on the run\'s audit trail, and counts it', async () => {
    const fake = await fakeDiscord();
    fake.failMessages(100, 500);
    const t = await app(fake);
    await t.app.discord!.accept(mention('what is 4*4?'));
    const [failed] = await eventually(() => {
      const rows = audit(t, 'discord.reply');
      return rows.length === 1 ? rows : undefined;
    }, 20_000);
    const [run] = await t.app.agent.listRuns(`discord:${CHANNEL}`, 1);
    expect(failed).toMatchObject({ result: 'error', task_id: run!.run_id, detail: { channel_id: CHANNEL } });
    expect(String(failed!.detail.reason)).toMatch(/HTTPError|500|Internal Server Error/);
    // The library retried the 5xx before giving up.
    expect(fake.requests.filter((r) => r.path.endsWith('/messages')).length).toBeGreaterThan(1);
    expect(await metric(t, 'agentd_discord_replies_total', 'failed')).toBe(1);
  });

  it('apologises with the run id when the run cannot be answered', async () => {
    const fake = await fakeDiscord();
    // A provider with no key: the run is refused before it starts.
    const t = await app(fake, { discord: { provider: 'anthropic' }, config: { providers: { anthropic: { api_key_env: 'ANTHROPIC_KEY_UNSET', model: 'claude-haiku-4-5' } } } });
    const message = mention('hello there');
    await t.app.discord!.accept(message);
    const [reply] = await fake.waitForMessages(1);
    expect(reply!.replyTo).toBe(message.id);
    expect(reply!.content).toMatch(/^Sorry, I could not answer this\. .*`run_[A-Za-z0-9_-]+`/);
    // The apology does not repeat the error's text.
    expect(reply!.content).not.toMatch(/ANTHROPIC|api_key/);
  });

  it('says in the channel that a run waits for an approval, with the console link; the operator decides in the console', async () => {
    const fake = await fakeDiscord();
    const t = await app(fake, { config: { tools: { require_approval: ['calculator'] } } });
    const message = mention('what is 2+3');
    await t.app.discord!.accept(message);
    const [notice] = await fake.waitForMessages(1);
    expect(notice!.replyTo).toBe(message.id);
    expect(notice!.content).toContain(`${t.url}/#/approvals`);
    expect(notice!.content).toMatch(/approval/);
    const approval = await eventually(async () => {
      const list = (await json(await t.request('/api/v1/approvals?state=pending'))).data.approvals as { id: string }[];
      return list[0];
    });
    expect((await postJson(t, `/api/v1/approvals/${approval.id}`, { decision: 'allow_once', confirm: `approve:${approval.id}` })).status).toBe(200);
    const [, answer] = await fake.waitForMessages(2);
    expect(answer!.content).toContain('5');
    expect(fake.messages).toHaveLength(2);
  });

  it('sends nothing to a host the network policy does not allow', async () => {
    const fake = await fakeDiscord();
    const t = await app(fake, { allowHost: false });
    await t.app.discord!.accept(mention('what is 5*5?'));
    const failed = await eventually(() => audit(t, 'discord.reply')[0], 20_000);
    expect(failed.result).toBe('error');
    expect(fake.requests).toEqual([]);
    expect(audit(t, 'network_denied').length).toBeGreaterThan(0);
  });

  it('never shows the token: not in logs, audit, errors or responses, even when Discord refuses it', async () => {
    const fake = await fakeDiscord('another-token');
    const t = await app(fake);
    await t.app.discord!.accept(mention('what is 7*7?'));
    await eventually(() => audit(t, 'discord.reply')[0], 20_000);
    expect(fake.requests[0]?.authorization).toBe(`Bot ${TOKEN}`);
    const everything = [
      JSON.stringify(storedEvents(t.app.storage as SqliteStorage)),
      t.log.lines.join('\n'),
      await (await t.request('/api/v1/diagnostics')).text(),
      await (await t.request('/metrics')).text(),
      JSON.stringify(await t.app.agent.listRuns(`discord:${CHANNEL}`, 10)),
    ].join('\n');
    expect(everything).toMatch(/discord\.reply/);
    expect(everything).not.toContain(TOKEN);
    expect(everything).not.toContain('secret-part');
  });

  it('refuses to start without the token in the environment', async () => {
    const fake = await fakeDiscord();
    await expect(app(fake, { env: {} })).rejects.toThrow(/DISCORD_BOT_TOKEN/);
  });

  it('runs a message stored before the process went away once, at the next start', async () => {
    const fake = await fakeDiscord();
    const home = mkdtempSync(join(tmpdir(), 'agentd-discord-'));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    // A process that stored the message and went away before its channel started running anything.
    const first = await createApp({
      home, env: { DISCORD_BOT_TOKEN: TOKEN }, log: createMemoryLogger(),
      config: { api: { api_key: 'test-key-0123456789abcdef', port: 0 }, ...discordConfig(fake, {}) } as ConfigInput,
    });
    first.discord!.ready({ userId: BOT });
    const message = mention('what is 8*8?');
    expect(await first.discord!.accept(message)).toBe('accepted');
    await first.close();
    expect(fake.messages).toEqual([]);

    const t = await app(fake, { home });
    const [reply] = await fake.waitForMessages(1);
    expect(reply).toMatchObject({ replyTo: message.id });
    expect(reply!.content).toContain('64');
    // The same dispatch replayed by the new connection is not run again.
    expect(await t.app.discord!.accept(message)).toBe('ignored');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(fake.messages).toHaveLength(1);
    expect(await t.app.agent.listRuns(`discord:${CHANNEL}`, 10)).toHaveLength(1);
  });
});
