import { describe, expect, it } from 'vitest';
import { discordSchema } from '../../config/discord-schema.js';
import { decide } from './acceptance.js';
import type { DiscordMessage } from './gateway/types.js';

const BOT = '900';
const settings = (extra: Record<string, unknown>) => discordSchema.parse({ enabled: true, ...extra });

function message(extra: Partial<DiscordMessage> = {}): DiscordMessage {
  return { id: '1', channel_id: '20', guild_id: '10', author: { id: '30' }, content: `<@${BOT}> hello`, mentions: [{ id: BOT }], ...extra };
}

describe('decide', () => {
  it('takes a mention in an allowed guild, the mention removed, on the channel session', () => {
    expect(decide(message(), settings({ allowed_guilds: ['10'] }), BOT)).toEqual({ accepted: true, sessionKey: '20', prompt: 'hello' });
    expect(decide(message({ content: `hi <@!${BOT}>` }), settings({ allowed_guilds: ['10'], session_per: 'user' }), BOT))
      .toEqual({ accepted: true, sessionKey: '30', prompt: 'hi' });
  });

  it('needs every list that is set to match in a guild channel', () => {
    const both = settings({ allowed_channels: ['20'], allowed_users: ['30'] });
    expect(decide(message(), both, BOT).accepted).toBe(true);
    expect(decide(message({ channel_id: '21' }), both, BOT)).toEqual({ accepted: false, reason: 'channel' });
    expect(decide(message({ author: { id: '31' } }), both, BOT)).toEqual({ accepted: false, reason: 'user' });
    expect(decide(message({ guild_id: '11' }), settings({ allowed_guilds: ['10'] }), BOT)).toEqual({ accepted: false, reason: 'guild' });
  });

  it('ignores bots, itself included, whatever the lists say', () => {
    const open = settings({ allowed_guilds: ['10'] });
    expect(decide(message({ author: { id: '31', bot: true } }), open, BOT)).toEqual({ accepted: false, reason: 'bot' });
    expect(decide(message({ author: { id: BOT, bot: true } }), open, BOT)).toEqual({ accepted: false, reason: 'self' });
  });

  it('needs a mention with respond_to: mentions, and the bot id to check it; not with respond_to: all', () => {
    const plain = message({ content: 'hello', mentions: [{ id: '77' }] });
    expect(decide(plain, settings({ allowed_guilds: ['10'] }), BOT)).toEqual({ accepted: false, reason: 'no_mention' });
    expect(decide(message(), settings({ allowed_guilds: ['10'] }), null)).toEqual({ accepted: false, reason: 'not_ready' });
    expect(decide(plain, settings({ allowed_guilds: ['10'], respond_to: 'all' }), BOT)).toEqual({ accepted: true, sessionKey: '20', prompt: 'hello' });
  });

  it('answers a direct message from an allowed user only, mention or not; guild and channel lists grant no DMs', () => {
    const dm = { ...message({ content: 'hi there', mentions: [] }), guild_id: undefined };
    expect(decide(dm, settings({ allowed_users: ['30'] }), null)).toEqual({ accepted: true, sessionKey: '20', prompt: 'hi there' });
    expect(decide(dm, settings({ allowed_guilds: ['10'], allowed_channels: ['20'] }), BOT)).toEqual({ accepted: false, reason: 'user' });
  });

  it('ignores a message that is only the mention', () => {
    expect(decide(message({ content: `<@${BOT}>  ` }), settings({ allowed_guilds: ['10'] }), BOT)).toEqual({ accepted: false, reason: 'empty' });
  });
});
