import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from './helpers/agent.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { FakeDiscordGateway } from './fakes/discord-gateway.js';
import { startFakeDiscordRest, type FakeDiscordRest } from './fakes/discord-rest.js';

/**
 * The whole Discord path in one service (docs/discord.md): a message dispatched on the fake
 * Gateway socket is accepted, stored, run on the channel's session and answered as a reply through
 * the fake REST API — the connection and the message side wired together as `serve` wires them.
 */

const TOKEN = 'OTk5.agentd-e2e-bot-token.never-shown';
const BOT = '900000000000000001';
const GUILD = '800000000000000001';
const CHANNEL = '700000000000000001';
const USER = '600000000000000001';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function discordService(): Promise<{ gateway: FakeDiscordGateway; rest: FakeDiscordRest; t: TestApp }> {
  const gateway = await FakeDiscordGateway.start({ token: TOKEN, heartbeatIntervalMs: 1_000 });
  cleanups.push(() => gateway.close());
  const rest = await startFakeDiscordRest({ token: TOKEN, gatewayUrl: gateway.wsUrl });
  cleanups.push(() => rest.close());
  const t = await startTestApp({
    env: { DISCORD_BOT_TOKEN: TOKEN },
    config: {
      discord: { enabled: true, allowed_guilds: [GUILD], allowed_channels: [CHANNEL], allowed_users: [USER], api_base_url: rest.baseUrl },
      network: { discord_allowed_hosts: [rest.host, `127.0.0.1:${gateway.port}`] },
    } as never,
  });
  cleanups.push(() => t.close());
  await eventually(() => t.app.discordConnection?.status().state === 'connected');
  return { gateway, rest, t };
}

function messageCreate(id: string, content: string, author = { id: USER, username: 'alice' }, mentions = [{ id: BOT, username: 'agentd-bot' }]) {
  return {
    id, channel_id: CHANNEL, guild_id: GUILD, author, content, mentions, type: 0,
    timestamp: new Date().toISOString(), tts: false, mention_everyone: false, attachments: [], embeds: [],
  };
}

describe('Discord from socket to reply', () => {
  it('answers a mention dispatched on the Gateway as a reply, on the channel session, and ignores the same message from an unlisted user', async () => {
    const { gateway, rest, t } = await discordService();

    gateway.dispatch('MESSAGE_CREATE', messageCreate('1300000000000000001', `<@${BOT}> what is 6*7?`));
    const [reply] = await rest.waitForMessages(1, 20_000);
    expect(reply!.replyTo).toBe('1300000000000000001');
    expect(reply!.channel_id).toBe(CHANNEL);
    expect(reply!.content).toContain('42');

    const { runs } = await t.app.agent.listAllRuns({ limit: 10, offset: 0 });
    expect(runs.map((r) => [r.source, r.session_id, r.status])).toEqual([['discord', `discord:${CHANNEL}`, 'complete']]);

    // Someone not on the list, in the same channel: no run, no post.
    gateway.dispatch('MESSAGE_CREATE', messageCreate('1300000000000000002', `<@${BOT}> what is 1+1?`, { id: '600000000000000099', username: 'mallory' }));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await t.app.agent.listAllRuns({ limit: 10, offset: 0 })).runs).toHaveLength(1);
    expect(rest.messages).toHaveLength(1);
  });
});
