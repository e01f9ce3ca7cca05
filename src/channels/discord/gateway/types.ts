export interface DiscordMessage { id: string; channel_id: string; guild_id?: string; author: { id: string; bot?: boolean; username?: string }; content: string; mentions: { id: string }[]; }
export interface DiscordConnectionEvents { ready(info: { userId: string; username: string; guildCount: number }): void; message(msg: DiscordMessage): void; }
