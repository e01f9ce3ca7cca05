import { Redis } from 'ioredis';
import type { Logger } from '../log.js';
import { redactUrl } from '../security/secrets/redact-url.js';

/**
 * A command that has not answered within this is failed: the request waiting on it is refused
 * (fail closed) instead of hanging while Redis is slow or gone.
 */
export const COMMAND_TIMEOUT_MS = 250;
/** How long one connection attempt may take before it is abandoned and retried later. */
export const CONNECT_TIMEOUT_MS = 1_000;
/** Reconnect back-off: doubles from 50 ms up to this, plus jitter so replicas do not retry in step. */
export const MAX_RECONNECT_DELAY_MS = 2_000;
/** Failures while connected (timeouts) are logged at most this often. */
const FAILURE_REPORT_MS = 60_000;

export function reconnectDelay(attempt: number): number {
  return Math.min(50 * 2 ** Math.min(attempt, 16), MAX_RECONNECT_DELAY_MS) + Math.floor(Math.random() * 100);
}

export interface RedisConnectionOptions {
  url: string;
  /** What the connection is for (`commands`, `events`): named in the log and in CLIENT LIST. */
  role: string;
  log: Logger;
  commandTimeoutMs?: number;
}

/**
 * One connection to Redis with the service's rules:
 * - no offline queue: while disconnected a command fails at once, so nothing piles up in memory
 *   and the caller can refuse its request now rather than later;
 * - a command in flight when the connection drops fails (no resend after reconnecting), and every
 *   command has a short timeout;
 * - it reconnects by itself with capped back-off, forever: Redis coming back is all it takes;
 * - the URL is logged without its password, and only changes of state are logged (not every
 *   failed attempt), so an outage writes two lines, not thousands.
 */
export class RedisConnection {
  readonly client: Redis;
  /** The URL without credentials, for log lines and diagnostics. */
  readonly target: string;
  private reachable: boolean | null = null;
  private lastFailureReport = Number.NEGATIVE_INFINITY;
  private closing = false;

  constructor(private readonly options: RedisConnectionOptions) {
    this.target = redactUrl(options.url);
    this.client = new Redis(options.url, {
      lazyConnect: true,
      connectionName: `agentd-${options.role}`,
      connectTimeout: CONNECT_TIMEOUT_MS,
      commandTimeout: options.commandTimeoutMs ?? COMMAND_TIMEOUT_MS,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      // Subscriptions are renewed by their owner, which also knows which ones are still wanted.
      autoResubscribe: false,
      retryStrategy: reconnectDelay,
    });
    this.client.on('ready', () => this.changed(true, null));
    this.client.on('error', (error: Error) => this.changed(false, error));
    this.client.on('close', () => this.changed(false, null));
  }

  /** Whether the last news from the connection was good (null before the first attempt ended). */
  get isReachable(): boolean {
    return this.reachable === true;
  }

  /**
   * Whether Redis answers a PING now, waiting at most the command timeout. Readiness asks this
   * rather than `isReachable`: a Redis that accepts TCP but never replies (hung, stopped with
   * SIGSTOP, behind a black-holing network) keeps the connection "ready" while every command of the
   * API times out, so only a command tells what the API will do.
   */
  async answers(): Promise<boolean> {
    try {
      return (await this.client.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  /**
   * Connects, waiting at most one connection attempt. False when Redis cannot be reached now: the
   * connection keeps trying in the background, and what needs Redis fails closed until then.
   */
  async connect(): Promise<boolean> {
    const ready = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), CONNECT_TIMEOUT_MS + 100);
      this.client.once('ready', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    this.client.connect().catch(() => undefined);
    return ready;
  }

  /**
   * A command failed while the connection looked healthy (a timeout, an error reply): logged at
   * most once a minute. Losing the connection is logged by the connection itself.
   */
  reportFailure(what: string, error: unknown): void {
    if (!this.isReachable) return;
    const now = Date.now();
    if (now - this.lastFailureReport < FAILURE_REPORT_MS) return;
    this.lastFailureReport = now;
    this.options.log.warn(`redis ${this.target} (${this.options.role}): ${what} failed: ${describe(error)}`);
  }

  async close(): Promise<void> {
    this.closing = true;
    try {
      // QUIT lets commands in flight finish; a dead connection is simply dropped.
      if (this.client.status === 'ready') await this.client.quit();
    } catch {
      // Closing anyway.
    } finally {
      this.client.disconnect(false);
    }
  }

  private changed(reachable: boolean, error: Error | null): void {
    if (this.closing || this.reachable === reachable) return;
    const first = this.reachable === null;
    this.reachable = reachable;
    if (reachable) {
      if (!first) this.options.log.info(`redis ${this.target} (${this.options.role}) is reachable again`);
      return;
    }
    this.options.log.warn(
      `redis ${this.target} (${this.options.role}) is unreachable${error ? `: ${describe(error)}` : ''}; ` +
        'requests that need it are refused with 503 until it answers again (reconnecting in the background)',
    );
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
