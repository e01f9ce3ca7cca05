import type { AuditEvent, AuditEventSource, AuditSink } from '../../storage/ports/audit.js';
import type { Logger } from '../../log.js';
import type { ServiceMetrics } from '../../metrics/index.js';
import type { RateLimiter } from '../../security/rate-limit/rate-limiter.js';
import type { WebhookHeaders } from './request-headers.js';

/** One accepted webhook request, as `receive()` hands it out. */
export interface WebhookMessage {
  /** The request's `prompt`, unchanged. */
  readonly content: string;
  /** The sanitised `sender` (`webhook` when absent or empty after sanitising). */
  readonly sender: string;
  readonly metadata: {
    /** Content-Type, User-Agent, X-Request-Id and X-Service-Signature, when the request had them. */
    readonly webhook_headers: Readonly<WebhookHeaders>;
  };
  /** Arrival time, ISO 8601 UTC with milliseconds. */
  readonly received_at: string;
}

/**
 * What a durable intake decided about an accepted request: `queued` and `duplicate` are answered
 * 202, `conflict` (the sender's X-Request-Id came before with another prompt) 409
 * AGENTD_IDEMPOTENCY_CONFLICT, `replay` (the signature was accepted before) 409
 * AGENTD_WEBHOOK_REPLAY, `full` 503.
 */
export type IntakeOutcome = 'queued' | 'duplicate' | 'conflict' | 'replay' | 'full';

/** A verified, timestamped signature: accepted once until `expiresAtMs`. */
export interface SignatureToRecord {
  /** As the replay guard compares it (lower case). */
  signature: string;
  expiresAtMs: number;
}

/**
 * Where accepted messages go instead of the channel's in-memory queue (`agentd serve` stores them):
 * the 202 is sent only once `accept` has resolved, so an acknowledged message is never only in memory.
 */
export interface WebhookIntake {
  /**
   * Keeps `message` unless `requestId` (X-Request-Id) was accepted before from the same sender
   * within the intake's window (`duplicate` with the same prompt: answered 202, not run again;
   * `conflict` with another), `signature` was accepted before (`replay`), or the intake is full
   * (`full`). The signature is recorded where the message is, in the same commit, so the replay
   * check holds across restarts and for every process sharing the intake's store. So is the
   * `audit` event `acceptance` builds, for a kept message (`duplicate` false) or a `duplicate`.
   */
  accept(
    message: WebhookMessage, requestId: string | undefined, signature?: SignatureToRecord, acceptance?: (duplicate: boolean) => AuditEvent,
  ): Promise<IntakeOutcome>;
}

export interface WebhookChannelOptions {
  /** Bind address. Default `127.0.0.1`; anything else without a secret logs a warning at start. */
  host?: string;
  /** Port; `0` picks a free one (read it from `.port` after `start()`). Default 9090. */
  port?: number;
  /** HMAC key for X-Service-Signature. Empty (the default) = no signature required. */
  secret?: string;
  /** Client IP = leftmost X-Forwarded-For address (only behind a proxy that overwrites it). */
  trustProxy?: boolean;
  /** Requests per client IP per sliding 60 s window. Default 60. */
  rateLimitPerMinute?: number;
  /**
   * Windows shared with other replicas (`agentd serve` with `storage.redis_url`) instead of this
   * channel's own in-memory ones; `rateLimitPerMinute` is then the shared limiter's business.
   */
  rateLimiter?: RateLimiter;
  /**
   * Where accepted and refused requests are recorded; nothing is recorded without one. With an
   * `intake`, an acceptance's event is built here and committed by the intake with the message.
   */
  audit?: AuditSink & AuditEventSource;
  /** Start-up warnings, reply lengths and unexpected errors. Default: standard error. */
  log?: Logger;
  /** Counts refusals by error code and rate-limited requests (the service's `/metrics`). */
  metrics?: Pick<ServiceMetrics, 'webhookRejected' | 'rateLimited'>;
  /**
   * Sign `<X-Service-Timestamp>.<body>`, refuse skew and replays (needs `secret`). Seen signatures
   * are remembered in memory, or, with an `intake`, by the intake (durably, in `agentd serve`).
   */
  requireTimestamp?: boolean;
  /** `requireTimestamp`: accepted clock difference between sender and channel. Default 300 s. */
  timestampToleranceSeconds?: number;
  /**
   * A sender's repeated X-Request-Id within 10 minutes is answered 202 without queuing a second
   * copy, or 409 AGENTD_IDEMPOTENCY_CONFLICT when its prompt differs.
   */
  idempotency?: boolean;
  /**
   * Accepted messages are handed to this instead of the in-memory queue (`receive()` then returns
   * nothing); it deduplicates by X-Request-Id and records replay signatures itself, so
   * `idempotency` is not needed with it.
   */
  intake?: WebhookIntake;
  /** Clock in epoch milliseconds (tests). */
  now?: () => number;
  /** How long a client may take to send the body after the headers. Default 10 s. */
  bodyTimeoutMs?: number;
}
