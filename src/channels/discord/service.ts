import type { DiscordConfig } from '../../config/discord-schema.js';
import type { Logger } from '../../log.js';
import type { ServiceMetrics } from '../../metrics/index.js';
import type { AuditSink } from '../../storage/ports/audit.js';
import type { InboxStore } from '../../storage/ports/inbox.js';
import { ChannelDispatcher, type ChannelInbox, type ChannelRunner, type ReplyOutcome } from '../dispatcher.js';
import { DurableInbox, type QueuedMessage } from '../inbox/durable-inbox.js';
import { decide } from './acceptance.js';
import { DiscordAudit, type ReplyTarget } from './audit.js';
import type { DiscordMessage } from './gateway/types.js';
import { DiscordReplies, type RunWatcher } from './replies.js';
import type { DiscordRest } from './rest.js';

export interface DiscordServiceDeps {
  audit: AuditSink;
  log: Logger;
  runner: ChannelRunner & RunWatcher & { getRun(runId: string): Promise<unknown> };
  /** Where accepted messages are kept until they run: the webhook's inbox, channel `discord`. */
  inbox: InboxStore;
  /** This process in the inbox's claims (`Storage.owner`). */
  owner: string;
  rest: DiscordRest;
  /** The service's base URL, for the console link of an approval. */
  consoleUrl(): string;
  metrics?: Pick<ServiceMetrics, 'discordMessage' | 'discordReply'>;
  now?: () => number;
  typingIntervalMs?: number;
}

/** What became of a message handed to `accept`. */
export type DiscordIntake = 'accepted' | 'ignored';

/**
 * The message side of the Discord channel (docs/discord.md): the connection hands each message
 * to `accept`, which decides whether it runs, and if so stores it in the durable inbox before
 * anything else, keyed by its Discord id, so a dispatch replayed after a resume is not run twice
 * and a crash loses nothing. Stored messages run one at a time per session (`discord:<channel id>`
 * or `discord:<user id>`), in order, on any replica, and are answered through the REST API.
 */
export class DiscordService {
  readonly inbox: DurableInbox;
  private readonly dispatcher: ChannelDispatcher<QueuedMessage>;
  private readonly replies: DiscordReplies;
  private readonly audit: DiscordAudit;
  private readonly now: () => number;
  private botUserId: string | null = null;
  private running = false;

  constructor(private readonly settings: DiscordConfig, private readonly deps: DiscordServiceDeps) {
    this.now = deps.now ?? Date.now;
    this.audit = new DiscordAudit(deps.audit, deps.log, this.now);
    this.inbox = new DurableInbox({
      channel: 'discord', store: deps.inbox, owner: deps.owner, log: deps.log, now: deps.now,
      runExists: async (runId) => (await deps.runner.getRun(runId)) !== null,
    });
    this.replies = new DiscordReplies({
      rest: deps.rest, runs: deps.runner, audit: this.audit, log: deps.log, metrics: deps.metrics,
      consoleUrl: deps.consoleUrl, typingIntervalMs: deps.typingIntervalMs,
    });
    this.dispatcher = new ChannelDispatcher({
      inbox: this.channelInbox(), runner: deps.runner, sessionPrefix: 'discord', provider: settings.provider, log: deps.log,
    });
  }

  /** The connection is up as this bot: its user id is what a mention must name, and its own messages are ignored by it. */
  ready(info: { userId: string }): void {
    this.botUserId = info.userId;
  }

  /**
   * Decides about a message and stores it when it runs; resolves once it is committed (or
   * ignored). Rejects only when the database cannot store it.
   */
  async accept(message: DiscordMessage): Promise<DiscordIntake> {
    const decision = decide(message, this.settings, this.botUserId);
    // The bot's own posts come back as messages: not worth a row or a count each.
    if (!decision.accepted && decision.reason === 'self') return 'ignored';
    if (!decision.accepted) return this.ignore(message, decision.reason);
    const outcome = await this.inbox.store({
      sender: decision.sessionKey,
      content: decision.prompt,
      metadata: { message_id: message.id, channel_id: message.channel_id, guild_id: message.guild_id ?? null, author_id: message.author.id },
      received_at: new Date(this.now()).toISOString(),
      requestId: message.id,
    });
    if (outcome === 'full') {
      this.deps.log.warn(`discord: message ${message.id} not stored: the inbox holds as many messages as it may`);
      return this.ignore(message, 'full');
    }
    if (outcome !== 'queued') return this.ignore(message, 'duplicate');
    this.deps.metrics?.discordMessage('accepted');
    await this.audit.accepted(message, `discord:${decision.sessionKey}`);
    return 'accepted';
  }

  /** Runs what was stored and not run before the last stop, then each message as it is stored. */
  async start(): Promise<void> {
    const recovered = await this.inbox.recover();
    if (recovered > 0) this.deps.log.info(`discord: ${recovered} message(s) stored before the last shutdown will run now`);
    this.inbox.startClaiming();
    this.dispatcher.start();
    this.running = true;
  }

  /**
   * Waits for the runs in flight and their replies (a while), then gives back the claims on what
   * was stored and not started: it runs at the next start, here or on another replica.
   */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    await this.dispatcher.stop();
    await this.replies.stop();
    await this.inbox.stopClaiming();
    this.deps.rest.close();
  }

  private ignore(message: DiscordMessage, reason: string): DiscordIntake {
    this.deps.metrics?.discordMessage('ignored');
    this.audit.ignored(message, reason);
    return 'ignored';
  }

  /** The durable inbox as the dispatcher sees it, with the replies hooked in. */
  private channelInbox(): ChannelInbox<QueuedMessage> {
    const { inbox, replies, deps } = this;
    return {
      receive: () => inbox.receive(),
      listen: (wake) => inbox.listen(wake),
      retry: (message, afterMs) => inbox.retry(message, afterMs),
      finished: (message) => inbox.finished(message),
      settled: (message) => {
        inbox.settled(message);
        const target = replyTarget(message);
        if (!target) return;
        replies.working(target);
        void replies.watch(target);
      },
      send: (text: string, message: QueuedMessage, outcome: ReplyOutcome) => {
        const target = replyTarget(message);
        if (target) replies.answer(target, text, outcome);
        else deps.log.warn(`discord: run ${message.runId} has no channel to answer in`);
      },
    };
  }
}

/** Where the message came from, as `accept` stored it. */
function replyTarget(message: QueuedMessage): ReplyTarget | null {
  const { channel_id: channelId, message_id: messageId } = message.metadata;
  if (typeof channelId !== 'string' || typeof messageId !== 'string') return null;
  return { channelId, messageId, runId: message.runId };
}
