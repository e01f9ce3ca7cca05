/**
 * What the Discord connection hands to the message side (docs/discord.md#connection): a
 * MESSAGE_CREATE narrowed to these fields and checked, and the bot's identity once READY.
 */

export interface DiscordMessage {
  id: string;
  channel_id: string;
  guild_id?: string;
  author: { id: string; bot?: boolean; username?: string };
  content: string;
  mentions: { id: string }[];
}

export interface DiscordConnectionEvents {
  ready(info: { userId: string; username: string; guildCount: number }): void;
  message(msg: DiscordMessage): void;
}
