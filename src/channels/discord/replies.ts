import type { ReplyOutcome } from '../dispatcher.js';
import type { Logger } from '../../log.js';
import type { ServiceMetrics } from '../../metrics/index.js';
import type { DiscordAudit, ReplyTarget } from './audit.js';
import { splitReply } from './reply-split.js';
import type { DiscordRest } from './rest.js';

/** Discord shows "typing…" for about 10 s: it is sent again this often while a run works. */
export const TYPING_INTERVAL_MS = 8_000;
/** How long stopping waits for replies still being posted (a rate limit may hold them). */
export const REPLY_DRAIN_MS = 10_000;

/** The part of the runtime that tells when a run waits for an operator. */
export interface RunWatcher {
  watchRun(runId: string, afterId: number, viewer: { send(event: { name: string }): void; end(): void }): Promise<
    { found: false } | { found: true; replay: { name: string }[]; finished: boolean; stop(): void }
  >;
}

export interface DiscordRepliesOptions {
  rest: DiscordRest;
  runs: RunWatcher;
  audit: DiscordAudit;
  log: Logger;
  metrics?: Pick<ServiceMetrics, 'discordReply'>;
  /** The service's base URL, for the console link of an approval. */
  consoleUrl(): string;
  typingIntervalMs?: number;
}

/** What a message shows while its run works: "typing…" and the watch for approval requests. */
interface Presence {
  typing: NodeJS.Timeout;
  stopWatching?: () => void;
  announced: boolean;
}

/**
 * Everything the channel posts (docs/discord.md#replies): "typing…" while a run works, a notice
 * when it waits for an approval (decided in the console, never from Discord), and the answer as a
 * reply, split into messages Discord accepts. A channel's posts go out one after another in the
 * order their runs ended. A reply that still fails after the REST client's retries is counted,
 * logged and audited (`discord.reply` error) with the run's id.
 */
export class DiscordReplies {
  /** By run id; one per message between its start and its reply. */
  private readonly presences = new Map<string, Presence>();
  /** The last post queued in each channel: the next waits for it. */
  private readonly chains = new Map<string, Promise<void>>();
  private readonly posting = new Set<Promise<void>>();

  constructor(private readonly options: DiscordRepliesOptions) {}

  /** The message is about to run: "typing…" until its reply. */
  working(target: ReplyTarget): void {
    if (this.presences.has(target.runId)) return;
    const type = () => {
      this.options.rest.typing(target.channelId).catch((error: unknown) => {
        this.options.log.warn(`discord: typing indicator in channel ${target.channelId} failed: ${describe(error)}`);
      });
    };
    type();
    const typing = setInterval(type, this.options.typingIntervalMs ?? TYPING_INTERVAL_MS);
    typing.unref();
    this.presences.set(target.runId, { typing, announced: false });
  }

  /** Its run exists: an approval it comes to wait for is announced in the channel, once. */
  async watch(target: ReplyTarget): Promise<void> {
    const presence = this.presences.get(target.runId);
    if (!presence) return;
    const seen = (event: { name: string }) => {
      if (event.name !== 'approval.request' || presence.announced) return;
      presence.announced = true;
      this.enqueue(target.channelId, () => this.postApprovalNotice(target));
    };
    const watched = await this.options.runs.watchRun(target.runId, 0, { send: seen, end: () => {} }).catch(() => ({ found: false as const }));
    if (!watched.found) return;
    if (this.presences.get(target.runId) !== presence || watched.finished) {
      watched.stop();
      return;
    }
    presence.stopWatching = () => watched.stop();
    for (const event of watched.replay) seen(event);
  }

  /** The run's answer, or an apology naming the run when it failed. */
  answer(target: ReplyTarget, text: string, outcome: ReplyOutcome): void {
    this.quiet(target.runId);
    const parts = outcome.failed
      ? [`Sorry, I could not answer this. The operator can look it up as run \`${outcome.runId ?? target.runId}\`.`]
      : splitReply(text.trim() === '' ? '(the run finished without an answer)' : text);
    this.enqueue(target.channelId, () => this.postReply(target, parts));
  }

  /** Stops every "typing…" and watch, and waits a while for the replies being posted. */
  async stop(drainMs = REPLY_DRAIN_MS): Promise<void> {
    for (const runId of [...this.presences.keys()]) this.quiet(runId);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, drainMs)));
    await Promise.race([Promise.allSettled([...this.posting]), timeout]);
    clearTimeout(timer);
    if (this.posting.size > 0) this.options.log.warn(`discord: ${this.posting.size} channel(s) still had replies to post at shutdown`);
  }

  private quiet(runId: string): void {
    const presence = this.presences.get(runId);
    if (!presence) return;
    clearInterval(presence.typing);
    presence.stopWatching?.();
    this.presences.delete(runId);
  }

  private enqueue(channelId: string, post: () => Promise<void>): void {
    const next = (this.chains.get(channelId) ?? Promise.resolve()).then(post);
    this.chains.set(channelId, next);
    this.posting.add(next);
    void next.finally(() => {
      this.posting.delete(next);
      if (this.chains.get(channelId) === next) this.chains.delete(channelId);
    });
  }

  /** Never rejects: a failure is counted, logged and audited. */
  private async postReply(target: ReplyTarget, parts: string[]): Promise<void> {
    const { rest, audit, log, metrics } = this.options;
    try {
      // The first part answers the message; the rest follow it in the channel.
      for (const [i, part] of parts.entries()) await rest.post(target.channelId, part, i === 0 ? target.messageId : undefined);
      metrics?.discordReply('posted');
      audit.replied(target, parts.length);
    } catch (error) {
      metrics?.discordReply('failed');
      const reason = describe(error);
      log.warn(`discord: the reply to message ${target.messageId} (run ${target.runId}) could not be posted: ${reason}`);
      audit.replyFailed(target, reason);
    }
  }

  private async postApprovalNotice(target: ReplyTarget): Promise<void> {
    const link = `${this.options.consoleUrl().replace(/\/+$/, '')}/#/approvals`;
    const text = `This needs an operator's approval before it can go on (run \`${target.runId}\`). It is decided in the console, not here: ${link}`;
    await this.options.rest.post(target.channelId, text, target.messageId).catch((error: unknown) => {
      this.options.log.warn(`discord: the approval notice for run ${target.runId} could not be posted: ${describe(error)}`);
    });
  }
}

/** An error's class and message, short: REST errors carry Discord's message, never the request's headers. */
function describe(error: unknown): string {
  const e = error as { name?: unknown; message?: unknown; status?: unknown };
  const status = typeof e?.status === 'number' ? ` (HTTP ${e.status})` : '';
  return `${typeof e?.name === 'string' ? e.name : 'Error'}: ${typeof e?.message === 'string' ? e.message : String(error)}${status}`.slice(0, 300);
}
