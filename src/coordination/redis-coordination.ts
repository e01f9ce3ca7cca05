import type { Logger } from '../log.js';
import type { RateLimiter } from '../security/rate-limit/rate-limiter.js';
import type { RunEventBus } from '../runs/run-event-bus.js';
import { RedisConnection } from './redis-connection.js';
import { measureRedis, type RedisHealth } from './redis-health.js';
import { ReplicaLiveness, type ReplicaLivenessOptions } from './replica-liveness.js';
import { RedisRateLimiter } from './redis-rate-limiter.js';
import { RedisRunEventBus } from './redis-run-event-bus.js';

export interface RedisCoordinationOptions {
  url: string;
  log: Logger;
  /** Starts every key and channel (`storage.redis_key_prefix`): several services may share one Redis. */
  keyPrefix: string;
}

/**
 * What replicas share through Redis: hot, ephemeral state that may be lost with Redis (it runs
 * without persistence) but must be one for the whole service while it lives. The system of record
 * stays the database.
 */
export class RedisCoordination {
  readonly keyPrefix: string;
  /** Commands (rate-limit windows, publishing): short timeouts, no offline queue. */
  readonly commands: RedisConnection;
  /** Subscriptions of the run-event bus (pub/sub needs a connection of its own). */
  readonly subscriber: RedisConnection;
  /** Run events and cancel requests between replicas. */
  readonly runEvents: RunEventBus;

  constructor(private readonly options: RedisCoordinationOptions) {
    this.keyPrefix = options.keyPrefix;
    this.commands = new RedisConnection({ url: options.url, role: 'commands', log: options.log });
    this.subscriber = new RedisConnection({ url: options.url, role: 'events', log: options.log });
    this.runEvents = new RedisRunEventBus(this.commands, this.subscriber, this.keyPrefix);
  }

  /** The URL without its password. */
  get target(): string {
    return this.commands.target;
  }

  /** Whether Redis answers a PING within the command timeout now (readiness). */
  answers(): Promise<boolean> {
    return this.commands.answers();
  }

  /**
   * Connects. A Redis that is down at start does not stop the service: it starts, refuses what
   * needs Redis with 503, and serves normally once Redis answers.
   */
  async start(): Promise<void> {
    const [commands] = await Promise.all([this.commands.connect(), this.subscriber.connect()]);
    if (!commands) {
      this.options.log.warn(`redis ${this.target} is not reachable at start; rate-limited requests are refused with 503 until it is`);
    }
  }

  /** Per-client-IP windows of one listener (`api`, `webhook`), shared by every replica. */
  rateLimiter(listener: string, limitPerMinute: number): RateLimiter {
    return new RedisRateLimiter(this.commands, `${this.keyPrefix}ratelimit:${listener}:`, limitPerMinute);
  }

  /** This replica's liveness key, and the judging of the others' (`ReplicaLiveness`). */
  liveness(options: Omit<ReplicaLivenessOptions, 'connection' | 'keyPrefix'>): ReplicaLiveness {
    return new ReplicaLiveness({ ...options, connection: this.commands, keyPrefix: this.keyPrefix });
  }

  /** Reachability, version and PING latency, for diagnostics. */
  health(): Promise<RedisHealth> {
    return measureRedis(this.commands);
  }

  async close(): Promise<void> {
    await Promise.all([this.commands.close(), this.subscriber.close()]);
  }
}
