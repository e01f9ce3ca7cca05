import type { DiscordConfig } from '../../config/discord-schema.js';
import type { DiscordMessage } from './gateway/types.js';

/** Why a message was not taken; recorded on its `discord.message` deny event (never its text), except `self`: the bot's own posts coming back. */
export type IgnoreReason = 'self' | 'bot' | 'guild' | 'channel' | 'user' | 'no_mention' | 'not_ready' | 'empty';

export type Acceptance =
  | { accepted: true; /** The session key: `discord:<sessionKey>`. */ sessionKey: string; /** The text to run, the bot's mention removed. */ prompt: string }
  | { accepted: false; reason: IgnoreReason };

/**
 * Which messages run (docs/discord.md#which-messages-run). Deny by default: in a guild channel every
 * allow list that is set must name the message's guild, channel or author; a direct message (no
 * guild) runs only when its author is in `allowed_users`. Bots, this one included, are never answered,
 * so two bots cannot talk to each other forever. With `respond_to: mentions` a guild message must
 * mention the bot, which needs its user id (known once the connection is ready).
 */
export function decide(message: DiscordMessage, settings: DiscordConfig, botUserId: string | null): Acceptance {
  const { author } = message;
  if (author.id === botUserId) return { accepted: false, reason: 'self' };
  if (author.bot === true) return { accepted: false, reason: 'bot' };
  const users = settings.allowed_users;
  const isDirect = message.guild_id === undefined;
  if (isDirect) {
    if (!users.includes(author.id)) return { accepted: false, reason: 'user' };
  } else {
    if (settings.allowed_guilds.length > 0 && !settings.allowed_guilds.includes(message.guild_id!)) return { accepted: false, reason: 'guild' };
    if (settings.allowed_channels.length > 0 && !settings.allowed_channels.includes(message.channel_id)) return { accepted: false, reason: 'channel' };
    if (users.length > 0 && !users.includes(author.id)) return { accepted: false, reason: 'user' };
    if (settings.respond_to === 'mentions') {
      if (botUserId === null) return { accepted: false, reason: 'not_ready' };
      if (!message.mentions.some((m) => m.id === botUserId)) return { accepted: false, reason: 'no_mention' };
    }
  }
  const prompt = withoutMention(message.content, botUserId).trim();
  if (prompt === '') return { accepted: false, reason: 'empty' };
  const sessionKey = settings.session_per === 'user' ? author.id : message.channel_id;
  return { accepted: true, sessionKey, prompt };
}

/** `<@id>` and the older `<@!id>` of the bot, which address it rather than say anything. */
function withoutMention(content: string, botUserId: string | null): string {
  if (botUserId === null) return content;
  return content.split(`<@${botUserId}>`).join('').split(`<@!${botUserId}>`).join('');
}
