import * as z from 'zod';

/**
 * `discord`: the Discord channel (docs/discord.md). Deny by default: every allow list starts empty,
 * and an enabled channel that allows nobody is refused at start rather than listening to no one.
 * The bot token is read from the environment variable `token_env` names, never from this file.
 */

/** A Discord id (a snowflake): decimal digits, kept as text because it exceeds 2^53. */
const snowflake = z.string().regex(/^[0-9]{1,20}$/, 'a Discord id (digits)');

/** Ids deduplicated: a list is a set, and a repeated id must not look like two grants. */
const idList = z.array(snowflake).default([]).transform((ids) => [...new Set(ids)]);

export const discordSchema = z
  .object({
    enabled: z.boolean().default(false),
    token_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name').default('DISCORD_BOT_TOKEN'),
    allowed_guilds: idList,
    allowed_channels: idList,
    allowed_users: idList,
    /** In guild channels: answer only messages that mention the bot, or every allowed message. Direct messages from an allowed user are always answered. */
    respond_to: z.enum(['mentions', 'all']).default('mentions'),
    /** One conversation per channel (`discord:<channel id>`) or per user (`discord:<user id>`). */
    session_per: z.enum(['channel', 'user']).default('channel'),
    /** The provider that answers; null uses the default provider. */
    provider: z.string().min(1).nullable().default(null),
    /** Discord's REST API root; the Gateway address is asked from it (`GET /gateway/bot`). Its host is subject to the network policy like any other. */
    api_base_url: z.url({ protocol: /^https?$/ }).default('https://discord.com/api/v10'),
  })
  .strict()
  .refine((d) => !d.enabled || d.allowed_guilds.length + d.allowed_channels.length + d.allowed_users.length > 0, {
    message: 'discord.enabled needs at least one of allowed_guilds, allowed_channels or allowed_users: empty lists allow no one',
    path: ['enabled'],
  })
  .prefault({});

export type DiscordConfig = z.infer<typeof discordSchema>;
