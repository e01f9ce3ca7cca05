import type { DiscordMessage } from './types.js';

/**
 * The Gateway's wire format (docs/discord.md#connection): opcodes, intents, close codes, and the
 * checks that turn what arrives on the socket into trusted shapes. Nothing read from the socket is
 * used before it passed one of these.
 */

export const Op = {
  Dispatch: 0,
  Heartbeat: 1,
  Identify: 2,
  Resume: 6,
  Reconnect: 7,
  InvalidSession: 9,
  Hello: 10,
  HeartbeatAck: 11,
} as const;

/** GUILDS | GUILD_MESSAGES | DIRECT_MESSAGES | MESSAGE_CONTENT: what the channel reads, nothing more. */
export const INTENTS = (1 << 0) | (1 << 9) | (1 << 12) | (1 << 15);

/** Closes after which reconnecting cannot help: the token, the shard or the intents are wrong. */
export const FATAL_CLOSE_CODES: ReadonlyMap<number, string> = new Map([
  [4004, 'authentication failed: the bot token was refused'],
  [4010, 'invalid shard'],
  [4011, 'sharding required: the bot is in too many guilds for one connection'],
  [4012, 'invalid API version'],
  [4013, 'invalid intents'],
  [4014, 'disallowed intents: enable the Message Content intent for the bot in the Developer Portal'],
]);

/** Closes after which the session cannot be resumed: identify afresh. */
export const SESSION_ENDING_CLOSE_CODES: ReadonlySet<number> = new Set([4007, 4009]);

export interface Payload {
  op: number;
  d: unknown;
  s: number | null;
  t: string | null;
}

const SNOWFLAKE = /^[0-9]{1,20}$/;
/** Discord's own limit is 2,000 characters (4,000 with Nitro); anything far longer is not a message. */
const MAX_CONTENT_LENGTH = 16_000;
const MAX_MENTIONS = 100;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isSnowflake = (value: unknown): value is string => typeof value === 'string' && SNOWFLAKE.test(value);
const shortText = (value: unknown, max: number): string | undefined => (typeof value === 'string' && value.length <= max ? value : undefined);

/** A payload, or null when the text is not one. */
export function parsePayload(text: string): Payload | null {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isRecord(raw) || !Number.isInteger(raw.op)) return null;
  const s = Number.isSafeInteger(raw.s) && (raw.s as number) >= 0 ? (raw.s as number) : null;
  return { op: raw.op as number, d: raw.d ?? null, s, t: typeof raw.t === 'string' ? raw.t : null };
}

/** Hello's heartbeat interval, bounded so a hostile value cannot spin or starve the heartbeat. */
export function helloInterval(d: unknown): number | null {
  if (!isRecord(d) || typeof d.heartbeat_interval !== 'number' || !Number.isFinite(d.heartbeat_interval)) return null;
  return Math.min(Math.max(d.heartbeat_interval, 100), 300_000);
}

export interface ReadyInfo {
  sessionId: string;
  resumeUrl: string | null;
  userId: string;
  username: string;
  guildIds: string[];
}

export function readyInfo(d: unknown): ReadyInfo | null {
  if (!isRecord(d) || !isRecord(d.user)) return null;
  const sessionId = shortText(d.session_id, 200);
  const username = shortText(d.user.username, 200);
  if (!sessionId || !isSnowflake(d.user.id) || username === undefined) return null;
  const guildIds = Array.isArray(d.guilds) ? d.guilds.filter(isRecord).map((g) => g.id).filter(isSnowflake) : [];
  return { sessionId, resumeUrl: gatewayUrl(d.resume_gateway_url), userId: d.user.id, username, guildIds };
}

/** A Gateway address (`wss:`, or `ws:` for a test's fake), or null. */
export function gatewayUrl(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > 2048) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'wss:' || url.protocol === 'ws:' ? url.href : null;
  } catch {
    return null;
  }
}

/** MESSAGE_CREATE narrowed to what the message side reads; null when a field is missing or malformed. */
export function discordMessage(d: unknown): DiscordMessage | null {
  if (!isRecord(d) || !isRecord(d.author)) return null;
  const content = shortText(d.content, MAX_CONTENT_LENGTH);
  if (!isSnowflake(d.id) || !isSnowflake(d.channel_id) || !isSnowflake(d.author.id) || content === undefined) return null;
  if (d.guild_id !== undefined && !isSnowflake(d.guild_id)) return null;
  const mentions = Array.isArray(d.mentions) ? d.mentions.slice(0, MAX_MENTIONS).filter(isRecord).map((m) => m.id).filter(isSnowflake) : [];
  const author: DiscordMessage['author'] = { id: d.author.id };
  if (d.author.bot === true) author.bot = true;
  const username = shortText(d.author.username, 200);
  if (username !== undefined) author.username = username;
  return {
    id: d.id, channel_id: d.channel_id, ...(d.guild_id !== undefined ? { guild_id: d.guild_id } : {}),
    author, content, mentions: mentions.map((id) => ({ id })),
  };
}

/** The guild id of GUILD_CREATE / GUILD_DELETE, and whether a delete means the bot left (not an outage). */
export function guildChange(d: unknown): { id: string; left: boolean } | null {
  if (!isRecord(d) || !isSnowflake(d.id)) return null;
  return { id: d.id, left: d.unavailable !== true };
}
