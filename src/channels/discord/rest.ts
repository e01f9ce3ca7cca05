import { REST, type ResponseLike } from '@discordjs/rest';

/** A WHATWG `fetch`: the outbound gateway's, under the network policy with category `discord`. */
export type DiscordFetch = (url: string, init: RequestInit) => Promise<Response>;

export interface DiscordRestOptions {
  /** Discord's REST root with its version (`discord.api_base_url`). */
  apiBaseUrl: string;
  token: string;
  fetch: DiscordFetch;
  /** How long one request may take before it is retried (the library's default is 15 s). */
  timeoutMs?: number;
}

/**
 * The REST calls the channel makes, through `@discordjs/rest`: it keeps Discord's rate limits
 * (per-route buckets from the X-RateLimit-* headers, `retry_after` on a 429, the global limit) and
 * retries 5xx answers, so a reply waits rather than being dropped. Every request goes out through
 * the `fetch` it is given (docs/discord.md#replies), never the library's own HTTP client.
 */
export class DiscordRest {
  private readonly rest: REST;

  constructor(options: DiscordRestOptions) {
    const send = options.fetch;
    this.rest = new REST({
      api: options.apiBaseUrl.replace(/\/+$/, ''),
      timeout: options.timeoutMs ?? 15_000,
      // Only what the request means is handed on; the library's undici dispatcher is not.
      makeRequest: async (url, init) => {
        const response = await send(url, {
          method: init.method, headers: init.headers as RequestInit['headers'], body: init.body as RequestInit['body'], signal: init.signal as AbortSignal | null,
        });
        return response as unknown as ResponseLike;
      },
    }).setToken(options.token);
  }

  /** "Typing…" in the channel for about 10 s, or until the bot posts there. */
  async typing(channelId: string): Promise<void> {
    await this.rest.post(`/channels/${channelId}/typing`, { versioned: false });
  }

  /**
   * Posts `content` in the channel, as a reply to `replyTo` when given. Mentions in it ping nobody
   * (an answer quoting `@everyone` must not notify a server); the person replied to is.
   */
  async post(channelId: string, content: string, replyTo?: string): Promise<{ id: string }> {
    const body: Record<string, unknown> = { content, allowed_mentions: { parse: [], replied_user: true } };
    if (replyTo !== undefined) body.message_reference = { message_id: replyTo, fail_if_not_exists: false };
    const created = (await this.rest.post(`/channels/${channelId}/messages`, { body, versioned: false })) as { id?: unknown };
    return { id: typeof created?.id === 'string' ? created.id : '' };
  }

  /** Stops the library's sweep timers. */
  close(): void {
    this.rest.clearHashSweeper();
    this.rest.clearHandlerSweeper();
  }
}
