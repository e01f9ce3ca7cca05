import { emitInBackground } from '../../audit/log.js';
import { AuditSampler } from '../../audit/sampler.js';
import type { AuditInput, AuditSink } from '../../storage/ports/audit.js';
import type { Logger } from '../../log.js';
import type { DiscordMessage } from './gateway/types.js';

/** Where a reply went and for which run: named on its `discord.reply` event. */
export interface ReplyTarget {
  channelId: string;
  /** The message answered. */
  messageId: string;
  runId: string;
}

/**
 * What the channel records (docs/discord.md#audit): ids and lengths, never a message's text.
 * Ignored messages go through a sampler keyed by channel and reason, so a busy channel where the
 * bot is not mentioned adds a few rows a minute, with the number skipped on the next one written.
 */
export class DiscordAudit {
  private readonly sampler: AuditSampler;

  constructor(private readonly sink: AuditSink, private readonly log: Logger, now: () => number) {
    this.sampler = new AuditSampler(3, 60_000, 10_000, now);
  }

  accepted(message: DiscordMessage, sessionId: string): Promise<void> {
    return this.write({
      event_type: 'discord.message', category: 'discord', result: 'allow', subsystem: 'discord', source: message.author.id, session_id: sessionId,
      detail: { ...ids(message), content_length: message.content.length },
    });
  }

  ignored(message: DiscordMessage, reason: string): void {
    const sample = this.sampler.take(`${message.channel_id}|${reason}`);
    if (sample === null) return;
    void this.write({
      event_type: 'discord.message', category: 'discord', result: 'deny', subsystem: 'discord', source: message.author.id,
      detail: { ...ids(message), reason, suppressed_since_last: sample.suppressed },
    });
  }

  replied(target: ReplyTarget, parts: number): void {
    void this.write({
      event_type: 'discord.reply', category: 'discord', result: 'allow', subsystem: 'discord', task_id: target.runId,
      detail: { channel_id: target.channelId, message_id: target.messageId, parts },
    });
  }

  replyFailed(target: ReplyTarget, reason: string): void {
    void this.write({
      event_type: 'discord.reply', category: 'discord', result: 'error', severity: 'warning', subsystem: 'discord', task_id: target.runId,
      detail: { channel_id: target.channelId, message_id: target.messageId, reason },
    });
  }

  /** A failing audit store must not stop a message or a reply; it is logged instead. */
  private write(input: AuditInput): Promise<void> {
    return emitInBackground(this.sink, input, (error) => this.log.error(`discord: audit write failed: ${(error as Error)?.name ?? 'error'}`));
  }
}

function ids(message: DiscordMessage): Record<string, unknown> {
  return { message_id: message.id, channel_id: message.channel_id, guild_id: message.guild_id ?? null, author_id: message.author.id };
}
