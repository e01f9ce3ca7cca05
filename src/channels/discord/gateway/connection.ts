import type { GatewayClient, GatewaySocket, WebSocketOptions } from '../../../gateway/index.js';
import { PolicyViolationError } from '../../../gateway/index.js';
import type { Logger } from '../../../log.js';
import type { AuditSink } from '../../../storage/ports/audit.js';
import { VERSION } from '../../../version.js';
import { gatewayUrl } from './protocol.js';
import { GatewaySession, type ResumeState, type SocketEnd } from './session.js';
import type { DiscordConnectionEvents } from './types.js';

/**
 * The bot's one Gateway connection (docs/discord.md#connection): asks `GET /gateway/bot` for the
 * address through the outbound gateway, opens the socket under the network policy, and keeps it
 * up — resuming where it can, identifying afresh where it must, backing off with jitter after
 * failures — until stopped or until Discord says reconnecting cannot help (a refused token, bad
 * intents): then it stops with that as its last error.
 */

/** What the outbound gateway offers this connection: a REST client and WebSockets, both for the `discord` category. */
export interface DiscordNetwork {
  client(options: { category: 'discord'; timeout?: number; maxResponseBytes?: number }): GatewayClient;
  webSocket(url: string, options: WebSocketOptions): Promise<GatewaySocket>;
}

export interface BackoffLimits {
  initialMs: number;
  maxMs: number;
}

export interface DiscordConnectionOptions {
  /** The bot token; sent in `Authorization` and identify, never logged, audited or echoed. */
  token: string;
  apiBaseUrl: string;
  network: DiscordNetwork;
  audit: AuditSink;
  log: Logger;
  events: DiscordConnectionEvents;
  now?: () => number;
  random?: () => number;
  backoff?: BackoffLimits;
}

export type ConnectionState = 'stopped' | 'standby' | 'connecting' | 'connected' | 'failed';

/** What diagnostics show of the connection. */
export interface ConnectionStatus {
  state: ConnectionState;
  lastError: string | null;
  user: { id: string; username: string } | null;
  guildCount: number | null;
  heartbeatLatencyMs: number | null;
}

const DEFAULT_BACKOFF: BackoffLimits = { initialMs: 1000, maxMs: 60_000 };
const REST_TIMEOUT_MS = 15_000;
/** `GET /gateway/bot` answers a few hundred bytes. */
const MAX_GATEWAY_BOT_BYTES = 64 * 1024;
/** Waits for an identify allowance (`session_start_limit.reset_after`) longer than this are capped. */
const MAX_IDENTIFY_WAIT_MS = 60 * 60 * 1000;

/** Raised to stop the connection for good, with a message fit for the operator. */
class FatalConnectionError extends Error {}

export class DiscordConnection {
  private readonly state: ResumeState = { sessionId: null, seq: null, resumeUrl: null, identity: null, guilds: new Set() };
  private readonly rest: GatewayClient;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly backoff: BackoffLimits;
  private current: GatewaySession | null = null;
  private running: Promise<void> | null = null;
  private stopping = false;
  private wake: (() => void) | null = null;
  private failures = 0;
  private readonly statusNow: ConnectionStatus = { state: 'stopped', lastError: null, user: null, guildCount: null, heartbeatLatencyMs: null };

  constructor(private readonly options: DiscordConnectionOptions) {
    this.rest = options.network.client({ category: 'discord', timeout: REST_TIMEOUT_MS, maxResponseBytes: MAX_GATEWAY_BOT_BYTES });
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    this.backoff = options.backoff ?? DEFAULT_BACKOFF;
  }

  status(): ConnectionStatus {
    return { ...this.statusNow, user: this.statusNow.user && { ...this.statusNow.user } };
  }

  /** Starts connecting in the background; a second call while running does nothing. */
  start(): void {
    if (this.running) return;
    this.stopping = false;
    this.statusNow.state = 'connecting';
    this.running = this.run().finally(() => {
      this.running = null;
    });
  }

  /** Closes the socket (ending the session) and ends the loop. */
  async stop(state: 'stopped' | 'standby' = 'stopped'): Promise<void> {
    this.stopping = true;
    this.current?.close();
    this.wake?.();
    await this.running;
    // The close ended the session: a later start identifies afresh rather than resuming it.
    Object.assign(this.state, { sessionId: null, seq: null, resumeUrl: null });
    if (this.statusNow.state !== 'failed') this.statusNow.state = state;
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      let end: SocketEnd;
      let established = false;
      try {
        const { session, ended } = await this.connect();
        end = await ended;
        established = session.established;
      } catch (error) {
        if (error instanceof FatalConnectionError) end = { next: 'stop', reason: error.message };
        else {
          const message = (error as Error)?.message ?? String(error);
          this.options.log.warn(`discord: could not connect to the Gateway: ${message}`);
          this.statusNow.lastError = message;
          end = { next: 'resume' };
        }
      }
      this.statusNow.heartbeatLatencyMs = null;
      if (this.stopping) return;
      if (end.next === 'stop') {
        await this.fail(end.reason);
        return;
      }
      this.statusNow.state = 'connecting';
      if (established) this.failures = 0;
      else this.failures++;
      const delay = end.next === 'identify' && end.delayMs > 0 ? end.delayMs : this.backoffDelay();
      if (delay > 0) await this.sleep(delay);
    }
  }

  /** Exponential, with full jitter: replicas and reconnecting clients do not retry in step. */
  private backoffDelay(): number {
    if (this.failures === 0) return 0;
    const ceiling = Math.min(this.backoff.maxMs, this.backoff.initialMs * 2 ** Math.min(this.failures - 1, 20));
    return Math.floor(ceiling / 2 + (ceiling / 2) * this.random());
  }

  private async fail(reason: string): Promise<void> {
    this.statusNow.state = 'failed';
    this.statusNow.lastError = reason;
    this.options.log.error(`discord: the connection stopped and will not be retried: ${reason}`);
    await this.audit('error', { reason });
  }

  /** Opens a socket and runs a session on it; `ended` settles when the socket closed. */
  private async connect(): Promise<{ session: GatewaySession; ended: Promise<SocketEnd> }> {
    const resuming = this.state.sessionId !== null && this.state.seq !== null;
    const base = (resuming ? this.state.resumeUrl : null) ?? (await this.gatewayAddress());
    const url = new URL(base);
    url.search = '?v=10&encoding=json';
    const session = new GatewaySession({
      token: this.options.token, state: this.state, events: this.options.events, log: this.options.log, now: this.now, random: this.random,
      onIdentity: (identity) => {
        this.statusNow.user = { id: identity.userId, username: identity.username };
        this.statusNow.guildCount = identity.guildCount;
        this.statusNow.state = 'connected';
        this.statusNow.lastError = null;
      },
      onHeartbeatAck: (latencyMs) => {
        this.statusNow.heartbeatLatencyMs = latencyMs;
      },
    });
    let settle!: (end: SocketEnd) => void;
    const ended = new Promise<SocketEnd>((resolve) => (settle = resolve));
    let socket: GatewaySocket;
    try {
      socket = await this.options.network.webSocket(url.href, {
        category: 'discord',
        onMessage: (text) => session.receive(text),
        onClose: (code) => settle(session.closed(code)),
      });
    } catch (error) {
      if (!(error instanceof PolicyViolationError)) throw error;
      await this.audit('deny', { host: error.host, reason: error.reason, resume: resuming });
      if (resuming && this.state.resumeUrl !== null) {
        // The resume address Discord named is not allowed: resume on the main address instead.
        this.options.log.warn(`discord: the resume address ${error.host} is not allowed by the network policy; resuming on the Gateway address`);
        this.state.resumeUrl = null;
        return this.connect();
      }
      throw new FatalConnectionError(`the network policy does not allow the Discord Gateway at ${error.host}: ${error.reason}`);
    }
    // Attached before anything else is awaited: the hello is handed over on the next turn of the loop.
    session.attach(socket);
    this.current = session;
    if (this.stopping) session.close();
    await this.audit('allow', { host: url.hostname, resume: resuming });
    return { session, ended: ended.finally(() => (this.current = null)) };
  }

  /** The Gateway address from `GET /gateway/bot`, after waiting out an exhausted identify allowance. */
  private async gatewayAddress(): Promise<string> {
    const endpoint = `${this.options.apiBaseUrl.replace(/\/+$/, '')}/gateway/bot`;
    let response;
    try {
      response = await this.rest.get(endpoint, { headers: { authorization: `Bot ${this.options.token}`, 'user-agent': `DiscordBot (agentd, ${VERSION})` } });
    } catch (error) {
      if (error instanceof PolicyViolationError) {
        await this.audit('deny', { host: error.host, reason: error.reason, resume: false });
        throw new FatalConnectionError(`the network policy does not allow the Discord API at ${error.host}: ${error.reason}`);
      }
      throw error;
    }
    if (response.status === 401) throw new FatalConnectionError('authentication failed: Discord refused the bot token (GET /gateway/bot answered 401)');
    if (response.status !== 200) throw new Error(`GET /gateway/bot answered ${response.status}`);
    let body: unknown;
    try {
      body = response.json();
    } catch {
      throw new Error('GET /gateway/bot answered something that is not JSON');
    }
    const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
    const address = gatewayUrl(record.url);
    if (!address) throw new Error('GET /gateway/bot did not name a Gateway address');
    await this.waitForIdentifyAllowance(record.session_start_limit);
    return address;
  }

  private async waitForIdentifyAllowance(limit: unknown): Promise<void> {
    if (typeof limit !== 'object' || limit === null) return;
    const { remaining, reset_after: resetAfter } = limit as Record<string, unknown>;
    if (remaining !== 0 || typeof resetAfter !== 'number' || !(resetAfter > 0)) return;
    const wait = Math.min(resetAfter, MAX_IDENTIFY_WAIT_MS);
    this.options.log.warn(`discord: the bot's identify allowance is used up; waiting ${Math.ceil(wait / 1000)} s before connecting`);
    this.statusNow.lastError = 'identify allowance used up; waiting for it to reset';
    await this.sleep(wait);
  }

  /** Waits `ms`, or less when stopped. */
  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wake = () => {
        this.wake = null;
        done();
      };
    });
  }

  /** `discord.connect`: allowed (the socket opened), denied by the policy, or stopped for good. Never the token. */
  private async audit(result: 'allow' | 'deny' | 'error', detail: Record<string, unknown>): Promise<void> {
    try {
      await this.options.audit.emit({
        event_type: 'discord.connect', category: 'network', result, subsystem: 'discord', source: 'discord', action: 'connect', detail,
        ...(result === 'error' ? { severity: 'error' as const } : {}),
      });
    } catch (error) {
      this.options.log.warn(`discord: audit event discord.connect could not be written (${(error as Error)?.name ?? 'error'})`);
    }
  }
}
