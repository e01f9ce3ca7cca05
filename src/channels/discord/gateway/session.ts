import type { GatewaySocket } from '../../../gateway/index.js';
import type { Logger } from '../../../log.js';
import { discordMessage, FATAL_CLOSE_CODES, guildChange, helloInterval, INTENTS, Op, parsePayload, readyInfo, SESSION_ENDING_CLOSE_CODES, type Payload } from './protocol.js';
import type { DiscordConnectionEvents } from './types.js';

/**
 * One socket's life on the Gateway (docs/discord.md#connection): hello → identify or resume →
 * dispatches, with heartbeats at hello's interval (the first after a random part of it). What
 * outlives the socket — the session id, the last sequence number, the resume address, the bot and
 * its guilds — is in `ResumeState`, so the next socket can resume where this one stopped.
 */

/** What outlives one socket: what the next needs to resume (cleared when it cannot), and who the bot is. */
export interface ResumeState {
  sessionId: string | null;
  seq: number | null;
  resumeUrl: string | null;
  identity: { userId: string; username: string } | null;
  /** The bot's guilds, from READY and the guild events since (bounded: the count is for diagnostics). */
  guilds: Set<string>;
}

/** What to do once the socket closed. */
export type SocketEnd =
  | { next: 'resume' }
  | { next: 'identify'; delayMs: number }
  | { next: 'stop'; reason: string };

/** A close code the client sends: anything but 1000/1001 keeps the session resumable. */
export const RESUMABLE_CLOSE = 4000;
/** Guilds counted at most (the count is for diagnostics; the set must not grow without bound). */
const MAX_GUILDS = 100_000;

export interface SessionOptions {
  token: string;
  state: ResumeState;
  events: DiscordConnectionEvents;
  log: Logger;
  now: () => number;
  random: () => number;
  /** The bot and its guilds changed (READY, guild joined or left). */
  onIdentity(identity: { userId: string; username: string; guildCount: number }): void;
  onHeartbeatAck(latencyMs: number): void;
}

export class GatewaySession {
  private socket: GatewaySocket | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private acked = true;
  private sentAt = 0;
  /** Set when this side closed the socket: what the close then means, whatever its code. */
  private intent: SocketEnd | null = null;
  /** READY or RESUMED arrived on this socket. */
  established = false;

  constructor(private readonly options: SessionOptions) {}

  attach(socket: GatewaySocket): void {
    this.socket = socket;
  }

  receive(text: string): void {
    const payload = parsePayload(text);
    if (!payload) {
      this.options.log.warn('discord: ignored a Gateway payload that is not valid JSON with an op code');
      return;
    }
    switch (payload.op) {
      case Op.Hello:
        this.hello(payload.d);
        break;
      case Op.HeartbeatAck:
        this.acked = true;
        this.options.onHeartbeatAck(this.options.now() - this.sentAt);
        break;
      case Op.Heartbeat:
        this.send({ op: Op.Heartbeat, d: this.options.state.seq });
        break;
      case Op.Dispatch:
        this.dispatch(payload);
        break;
      case Op.Reconnect:
        this.closeFor({ next: 'resume' });
        break;
      case Op.InvalidSession:
        this.invalidSession(payload.d === true);
        break;
      default:
        break;
    }
  }

  /** The socket closed: what to do next. */
  closed(code: number): SocketEnd {
    this.stopHeartbeat();
    this.socket = null;
    if (this.intent) return this.intent;
    const fatal = FATAL_CLOSE_CODES.get(code);
    if (fatal) return { next: 'stop', reason: `Discord closed the connection with ${code}: ${fatal}` };
    if (SESSION_ENDING_CLOSE_CODES.has(code) || this.options.state.sessionId === null) {
      this.forgetSession();
      return { next: 'identify', delayMs: 0 };
    }
    return { next: 'resume' };
  }

  /**
   * Closes the socket for good (shutdown, or the connection handed to another replica) with 1000,
   * which ends the session at once: the bot shows offline rather than lingering until it times out.
   */
  close(): void {
    this.closeFor({ next: 'stop', reason: 'stopped' }, 1000);
  }

  private hello(d: unknown): void {
    const interval = helloInterval(d);
    if (interval === null) {
      this.closeFor({ next: 'resume' });
      return;
    }
    this.stopHeartbeat();
    // The first beat after a random part of the interval, so many clients reconnecting at once do not beat together.
    this.heartbeat = setTimeout(() => this.beat(interval), Math.floor(interval * this.options.random()));
    const { state, token } = this.options;
    if (state.sessionId !== null && state.seq !== null) {
      this.send({ op: Op.Resume, d: { token, session_id: state.sessionId, seq: state.seq } });
    } else {
      this.send({ op: Op.Identify, d: { token, intents: INTENTS, properties: { os: process.platform, browser: 'agentd', device: 'agentd' } } });
    }
  }

  private beat(interval: number): void {
    if (!this.acked) {
      // No ACK since the last beat: the connection is a zombie. Close it and resume on a new one.
      this.options.log.warn('discord: the Gateway did not acknowledge the last heartbeat; reconnecting to resume');
      this.closeFor({ next: 'resume' });
      return;
    }
    this.acked = false;
    this.sentAt = this.options.now();
    this.send({ op: Op.Heartbeat, d: this.options.state.seq });
    this.heartbeat = setTimeout(() => this.beat(interval), interval);
  }

  private dispatch(payload: Payload): void {
    const { state } = this.options;
    if (payload.s !== null && (state.seq === null || payload.s > state.seq)) state.seq = payload.s;
    switch (payload.t) {
      case 'READY':
        this.ready(payload.d);
        break;
      case 'RESUMED':
        this.established = true;
        this.identityChanged();
        break;
      case 'MESSAGE_CREATE':
        this.message(payload.d);
        break;
      case 'GUILD_CREATE':
      case 'GUILD_DELETE':
        this.guildChanged(payload.t, payload.d);
        break;
      default:
        break;
    }
  }

  private ready(d: unknown): void {
    const info = readyInfo(d);
    if (!info) {
      this.options.log.warn('discord: READY did not carry a session id and the bot user; identifying again');
      this.forgetSession();
      this.closeFor({ next: 'identify', delayMs: 0 });
      return;
    }
    const { state } = this.options;
    state.sessionId = info.sessionId;
    state.resumeUrl = info.resumeUrl;
    this.established = true;
    state.guilds = new Set(info.guildIds.slice(0, MAX_GUILDS));
    state.identity = { userId: info.userId, username: info.username };
    const identity = { ...state.identity, guildCount: state.guilds.size };
    this.options.onIdentity(identity);
    this.tell(() => this.options.events.ready(identity));
  }

  private identityChanged(): void {
    const { identity, guilds } = this.options.state;
    if (identity) this.options.onIdentity({ ...identity, guildCount: guilds.size });
  }

  private message(d: unknown): void {
    const message = discordMessage(d);
    if (!message) {
      // Its content is not logged: whatever arrived, it may be someone's message.
      this.options.log.warn('discord: ignored a MESSAGE_CREATE whose fields are missing or malformed');
      return;
    }
    this.tell(() => this.options.events.message(message));
  }

  private guildChanged(t: 'GUILD_CREATE' | 'GUILD_DELETE', d: unknown): void {
    const change = guildChange(d);
    const { guilds } = this.options.state;
    if (!change) return;
    if (t === 'GUILD_CREATE' && guilds.size < MAX_GUILDS) guilds.add(change.id);
    if (t === 'GUILD_DELETE' && change.left) guilds.delete(change.id);
    this.identityChanged();
  }

  /** A listener's failure is the message side's to handle; it must not end the connection. */
  private tell(call: () => void): void {
    try {
      call();
    } catch (error) {
      this.options.log.error(`discord: a connection event listener failed: ${(error as Error)?.message ?? String(error)}`);
    }
  }

  private invalidSession(resumable: boolean): void {
    if (resumable) {
      this.closeFor({ next: 'resume' });
      return;
    }
    // Discord asks for a wait of 1 to 5 seconds before identifying again.
    this.forgetSession();
    this.closeFor({ next: 'identify', delayMs: 1000 + Math.floor(this.options.random() * 4000) });
  }

  private forgetSession(): void {
    const { state } = this.options;
    state.sessionId = null;
    state.seq = null;
    state.resumeUrl = null;
  }

  private closeFor(end: SocketEnd, code = RESUMABLE_CLOSE): void {
    this.intent ??= end;
    this.stopHeartbeat();
    this.socket?.close(code, end.next);
  }

  private send(payload: { op: number; d: unknown }): void {
    this.socket?.send(JSON.stringify(payload));
  }

  private stopHeartbeat(): void {
    if (this.heartbeat) clearTimeout(this.heartbeat);
    this.heartbeat = null;
  }
}
