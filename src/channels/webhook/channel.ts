import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createLogger, type Logger } from '../../log.js';
import { liveEvictionWarning, SlidingWindowRateLimiter, type RateLimiter } from '../../security/rate-limit/rate-limiter.js';
import { WebhookAudit } from './audit.js';
import { createClientErrorHandler, createConnectHandler } from './client-errors.js';
import { ByteBudget } from './byte-budget.js';
import { Deadlines } from './deadlines.js';
import { createRequestHandler } from './handler.js';
import { BODY_TIMEOUT_MS, MAX_BODY_BYTES_IN_FLIGHT, MAX_TIMESTAMP_SKEW_SECONDS, MAX_TRACKED_CLIENTS, QUEUE_CAPACITY } from './limits.js';
import { ReplayGuard } from './replay-guard.js';
import { RequestIdMemory } from './request-ids.js';
import { RingBuffer } from './ring-buffer.js';
import type { WebhookChannelOptions, WebhookMessage } from './types.js';

/** Time allowed for the request line and headers (Node's slow-header guard). */
const HEADERS_TIMEOUT_MS = 10_000;

/**
 * The embeddable webhook channel: its own `node:http` listener, separate from the REST API, that
 * turns each valid POST into a queued message. Callers poll `receive()`; the webhook's caller only
 * ever gets 202, never a result.
 *
 *   const channel = new WebhookChannel({ port: 0, secret });
 *   await channel.start();
 *   const message = channel.receive();
 */
export class WebhookChannel {
  readonly host: string;
  private readonly requestedPort: number;
  private readonly secret: string;
  private readonly trustProxy: boolean;
  private readonly log: Logger;
  private readonly queue = new RingBuffer<WebhookMessage>(QUEUE_CAPACITY);
  private readonly limiter: RateLimiter;
  private readonly sockets = new Set<Socket>();
  private readonly server: Server;
  private readonly deadlines: Deadlines;
  private listening = false;
  private stopping = false;

  constructor(options: WebhookChannelOptions = {}) {
    this.host = options.host ?? '127.0.0.1';
    this.requestedPort = options.port ?? 9090;
    this.secret = options.secret ?? '';
    this.trustProxy = options.trustProxy ?? false;
    this.log = options.log ?? createLogger();
    const rateLimitPerMinute = options.rateLimitPerMinute ?? 60;
    const bodyTimeoutMs = options.bodyTimeoutMs ?? BODY_TIMEOUT_MS;
    const now = options.now ?? Date.now;
    const toleranceSeconds = options.timestampToleranceSeconds ?? MAX_TIMESTAMP_SKEW_SECONDS;
    validate(this.host, this.requestedPort, this.secret, rateLimitPerMinute, bodyTimeoutMs, options.requireTimestamp, toleranceSeconds);

    this.deadlines = new Deadlines(bodyTimeoutMs);
    this.limiter = options.rateLimiter ?? this.localLimiter(rateLimitPerMinute, now);
    const audit = new WebhookAudit(options.audit, this.log, now, options.metrics);
    const inflight = new WeakMap<Socket, ServerResponse>();
    const handler = createRequestHandler({
      secret: this.secret,
      trustProxy: this.trustProxy,
      limiter: this.limiter,
      queue: this.queue,
      audit,
      log: this.log,
      bodyBytes: new ByteBudget(MAX_BODY_BYTES_IN_FLIGHT),
      deadlines: this.deadlines,
      now,
      replay: options.requireTimestamp ? new ReplayGuard(toleranceSeconds) : null,
      requestIds: options.idempotency && !options.intake ? new RequestIdMemory() : null,
      intake: options.intake ?? null,
      stopping: () => this.stopping,
      inflight,
      metrics: options.metrics,
    });

    this.server = createServer({
      headersTimeout: HEADERS_TIMEOUT_MS,
      // Backstop only: the channel's own body timer answers slow bodies first.
      requestTimeout: HEADERS_TIMEOUT_MS + bodyTimeoutMs + 5_000,
      connectionsCheckingInterval: 5_000,
      // Node would refuse a request without Host with a bare 400 of its own (no security headers,
      // no envelope); the channel does not route by Host, so it is simply not required.
      requireHostHeader: false,
    }, handler);
    // With a listener here Node does not answer `Expect: 100-continue` on its own: the header checks
    // run first, and 100 Continue is sent only right before the body is read, so a refused client
    // is told before it uploads anything.
    this.server.on('checkContinue', (req, res) => handler(req, res, true));
    // Other expectations are ignored rather than answered 417 without our headers.
    this.server.on('checkExpectation', (req, res) => handler(req, res));
    this.server.on('clientError', createClientErrorHandler({ audit, inflight }));
    this.server.on('connect', createConnectHandler({ audit }));
    this.server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  /** The bound port after `start()` (the OS-chosen one when 0 was asked), else the configured one. */
  get port(): number {
    const address = this.server.address();
    return address !== null && typeof address === 'object' ? (address as AddressInfo).port : this.requestedPort;
  }

  /** Client IPs the in-memory rate limiter currently remembers (at most 10,000; 0 with shared windows). */
  get trackedClients(): number {
    return this.limiter instanceof SlidingWindowRateLimiter ? this.limiter.trackedKeys : 0;
  }

  /** Messages waiting for `receive()` (at most 1,000). */
  get pending(): number {
    return this.queue.size;
  }

  /** Open TCP connections to the listener. */
  get openConnections(): number {
    return this.sockets.size;
  }

  /** Bind the listener; resolves once it accepts connections. */
  async start(): Promise<void> {
    if (this.listening) throw new Error('webhook channel already started');
    this.stopping = false;
    this.deadlines.start();
    try {
      await new Promise<void>((resolve, reject) => {
        const onError = (error: Error) => reject(error);
        this.server.once('error', onError);
        this.server.listen(this.requestedPort, this.host, () => {
          this.server.off('error', onError);
          resolve();
        });
      });
    } catch (error) {
      this.deadlines.stop();
      throw error;
    }
    this.listening = true;
    this.warnAboutExposure();
  }

  /** The oldest queued message, or `undefined` at once when there is none (never waits). */
  receive(): WebhookMessage | undefined {
    return this.queue.shift();
  }

  /**
   * The webhook's caller was answered 202 long ago and gets nothing back (docs/webhook.md#two-ways-to-run-it); the
   * reply is only acknowledged in the log, by its length (the text itself may be sensitive).
   */
  send(text: string): void {
    this.log.info(`webhook: reply of ${text.length} characters (not delivered: webhook callers only get 202)`);
  }

  /**
   * From now on every request is answered 503 (the service is shutting down) while the listener
   * still runs, so a sender is told to retry elsewhere or later instead of seeing a reset. `stop()`
   * then closes it.
   */
  refuseNew(): void {
    this.stopping = true;
  }

  /** Stop listening and close every connection, idle or busy. Safe to call twice. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (!this.listening) return;
    this.listening = false;
    this.deadlines.stop();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  private localLimiter(perMinute: number, now: () => number): SlidingWindowRateLimiter {
    const limiter = new SlidingWindowRateLimiter(perMinute, MAX_TRACKED_CLIENTS, 60, now);
    limiter.onLiveEviction((evicted) => this.log.warn(liveEvictionWarning('webhook', evicted)));
    return limiter;
  }

  private warnAboutExposure(): void {
    // Anything but 127.0.0.1 (`localhost` and `::1` included) is warned about (docs/decisions.md#only-127001-counts-as-unexposed).
    if (this.secret === '' && this.host !== '127.0.0.1') {
      this.log.warn(
        `webhook: no secret is set and the listener is bound to ${this.host}, not 127.0.0.1: ` +
          'unauthenticated requests from any client that can reach it will be queued. Set a secret or bind to 127.0.0.1.',
      );
    }
    if (this.trustProxy) {
      this.log.warn(
        'webhook: trust_proxy is on: the client IP is the leftmost X-Forwarded-For address, which the client ' +
          'controls unless the proxy overwrites the header (nginx: proxy_set_header X-Forwarded-For $remote_addr;).',
      );
    }
  }
}

function validate(
  host: string,
  port: number,
  secret: string,
  rateLimitPerMinute: number,
  bodyTimeoutMs: number,
  requireTimestamp: boolean | undefined,
  toleranceSeconds: number,
): void {
  if (typeof host !== 'string' || host === '') throw new TypeError('webhook host must be a non-empty string');
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new RangeError('webhook port must be an integer from 0 to 65535');
  if (typeof secret !== 'string') throw new TypeError('webhook secret must be a string');
  if (typeof rateLimitPerMinute !== 'number' || !(rateLimitPerMinute >= 1)) {
    throw new RangeError('webhook rateLimitPerMinute must be at least 1');
  }
  if (!Number.isFinite(bodyTimeoutMs) || bodyTimeoutMs <= 0) throw new RangeError('webhook bodyTimeoutMs must be positive');
  if (!Number.isInteger(toleranceSeconds) || toleranceSeconds < 1) {
    throw new RangeError('webhook timestampToleranceSeconds must be a positive integer');
  }
  if (requireTimestamp && secret === '') {
    throw new TypeError('webhook requireTimestamp needs a secret: the timestamp is part of the signed payload');
  }
}
