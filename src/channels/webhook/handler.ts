import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError, coordinationUnavailable, internalError, payloadTooLarge, rateLimited, shuttingDown, unauthorized, unsupportedMediaType } from '../../listener/errors.js';
import type { Logger } from '../../log.js';
import type { ServiceMetrics } from '../../metrics/index.js';
import { StorageFullError, StorageUnavailableError } from '../../storage/ports/errors.js';
import { requestClientIp } from '../../listener/client-ip.js';
import type { RateLimiter } from '../../security/rate-limit/rate-limiter.js';
import type { WebhookAudit } from './audit.js';
import { readBody, type BodyResult } from './body.js';
import type { ByteBudget } from './byte-budget.js';
import type { Deadlines } from './deadlines.js';
import { MAX_BODY_BYTES, RETRY_AFTER_SECONDS } from './limits.js';
import { parsePayload } from './payload.js';
import type { ReplayGuard } from './replay-guard.js';
import { hasRequestBody, isJsonContentType, parseContentLength, pickWebhookHeaders } from './request-headers.js';
import type { RequestIdMemory } from './request-ids.js';
import { sendError, sendQueued } from './respond.js';
import type { RingBuffer } from './ring-buffer.js';
import { signatureMatches } from './signature.js';
import type { SignatureToRecord, WebhookIntake, WebhookMessage } from './types.js';
import { afterBodyDrained } from '../../listener/drain-body.js';
import { closeAfterUpgradeRequest } from '../../listener/upgrade-requests.js';
import { isoTime } from '../../util/iso-time.js';

export interface HandlerDeps {
  secret: string;
  trustProxy: boolean;
  limiter: RateLimiter;
  queue: RingBuffer<WebhookMessage>;
  audit: WebhookAudit;
  log: Logger;
  /** Body bytes held by all reads together. */
  bodyBytes: ByteBudget;
  /** Body-read timeouts (the channel starts and stops their sweep with the listener). */
  deadlines: Deadlines;
  now: () => number;
  /** Set with `requireTimestamp`; with an `intake`, only its timestamp check and records are used. */
  replay: ReplayGuard | null;
  /** Set with `idempotency` (without an intake). */
  requestIds: RequestIdMemory | null;
  /** Set when accepted messages are stored instead of queued in memory. */
  intake: WebhookIntake | null;
  /** True once the channel is stopping: every new request is answered 503. */
  stopping: () => boolean;
  /** The response in flight per socket, so the client-error handler never answers twice. */
  inflight: WeakMap<Socket, ServerResponse>;
  metrics?: Pick<ServiceMetrics, 'rateLimited'>;
}

export type RequestHandler = (req: IncomingMessage, res: ServerResponse, expectContinue?: boolean) => void;

const noop = () => {};

/**
 * Entry point for every parsed request. Whatever happens inside, the client gets an answer: an
 * unexpected exception becomes the 500 envelope, and a connection is only dropped without one
 * when its client has gone or stalled past the body timeout.
 */
export function createRequestHandler(deps: HandlerDeps): RequestHandler {
  return function onRequest(req, res, expectContinue = false) {
    // A client vanishing mid-request emits 'error' on these; unhandled, that would end the process.
    req.on('error', noop);
    res.on('error', noop);
    closeAfterUpgradeRequest(req, res);
    deps.inflight.set(req.socket, res);
    const ip = requestClientIp(req.socket, req.headers['x-forwarded-for'], deps.trustProxy);
    new Exchange(deps, req, res, ip, expectContinue).step(checkHeaders);
  };
}

/**
 * One request on its way through the checks. A step runs synchronously and returns a Promise only
 * when it waits for something other than the body (a shared rate-limit window, a durable intake):
 * on the accepted in-memory path an async function per request, and the body read as a Promise,
 * were a measurable share of the cost.
 */
class Exchange {
  /** The whole body was read: a refusal can leave the connection open. */
  bodyRead = false;
  /** The body is being read (and timed): a refusal need not wait for it. */
  bodyStarted = false;

  constructor(
    readonly deps: HandlerDeps,
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly ip: string,
    readonly expectContinue: boolean,
  ) {}

  /** Runs `run`; whatever it throws, or its Promise rejects with, is answered (`fail`). */
  step(run: (exchange: Exchange) => void | Promise<void>): void {
    try {
      const pending = run(this);
      if (pending !== undefined) pending.catch((error: unknown) => this.fail(error));
    } catch (error) {
      this.fail(error);
    }
  }

  refuse(error: ApiError): void {
    const { req, res } = this;
    // Keeping the connection would mean reading and discarding a body we just refused (up to any
    // size for a 413): close it after the answer instead.
    const close = !this.bodyRead && hasRequestBody(req.headers);
    // A client told to wait (Expect: 100-continue, never continued) sends no body: answer at once.
    if (close && !this.expectContinue && !this.bodyStarted) afterBodyDrained(req, () => sendError(res, error, true));
    else sendError(res, error, close);
    this.deps.audit.rejected(this.ip, error);
  }

  private fail(error: unknown): void {
    const { deps, req, res } = this;
    // A full disk or an unreachable database under the durable intake is the operator's to fix,
    // not a fault of ours.
    const known = error instanceof StorageFullError ? new ApiError('AGENTD_STORAGE_FULL')
      : error instanceof StorageUnavailableError ? new ApiError('AGENTD_STORAGE_UNAVAILABLE') : null;
    const answer = known ?? internalError();
    if (known === null) deps.log.error(`webhook: unexpected error while handling a request: ${describe(error)}`);
    deps.audit.rejected(this.ip, answer);
    if (!res.headersSent) sendError(res, answer, true);
    else req.socket.destroy();
  }
}

/**
 * The checks run in the order of docs/webhook.md#order-of-checks, and the order is the point:
 *
 *   (stopping) → method → rate limit → Content-Type → Content-Length → read body → signature → JSON → prompt
 *   length → queue
 *
 * Cheap refusals come before expensive work: everything up to Content-Length looks at headers
 * only, so a refused request costs no body read, no HMAC and no parse. The method comes first
 * because a GET is not a webhook request at all: it gets 405 even when its client is over the rate
 * limit, and it does not spend that client's budget. The size is checked from Content-Length
 * before any byte is read, because the signature needs the whole body: verifying first would let
 * anyone make us buffer and hash an arbitrarily large body. With a secret set, only a verified body
 * is parsed, so an unauthenticated client never reaches the JSON parser.
 *
 * One step guards memory (docs/decisions.md#webhook-body-budget): before the body is read, its declared length must fit in the
 * budget of body bytes held by all requests together (503 otherwise), so memory stays bounded
 * however many clients upload at once.
 */
function checkHeaders(x: Exchange): void | Promise<void> {
  const { deps, req } = x;
  if (deps.stopping()) return x.refuse(shuttingDown());
  if (req.method !== 'POST') return x.refuse(new ApiError('AGENTD_METHOD_NOT_ALLOWED', undefined, { allow: 'POST' }));
  const decision = deps.limiter.hit(x.ip);
  // Shared windows answer later, and fail closed: a window that cannot be read is no room to spare.
  if (decision instanceof Promise) return decision.then((shared) => shared.allowed, () => null).then((allowed) => startBody(x, allowed));
  return startBody(x, decision.allowed);
}

function startBody(x: Exchange, allowed: boolean | null): void {
  const { deps, req, res } = x;
  if (allowed === null) return x.refuse(coordinationUnavailable());
  if (!allowed) {
    deps.metrics?.rateLimited('webhook');
    return x.refuse(rateLimited(RETRY_AFTER_SECONDS));
  }
  if (!isJsonContentType(req.headers['content-type'])) return x.refuse(unsupportedMediaType());
  const declared = parseContentLength(req.headers, MAX_BODY_BYTES);
  switch (declared.kind) {
    case 'missing':
      return x.refuse(new ApiError('AGENTD_BAD_REQUEST', 'Content-Length is required (chunked bodies are not accepted)'));
    case 'invalid':
      return x.refuse(new ApiError('AGENTD_BAD_REQUEST', 'Content-Length must be a non-negative integer'));
    case 'too-large':
      return x.refuse(payloadTooLarge('Request body too large (limit 1 MiB)'));
  }

  if (!deps.bodyBytes.tryReserve(declared.bytes)) {
    return x.refuse(new ApiError('AGENTD_AT_CAPACITY', 'Too many request bodies in flight, retry later', { 'retry-after': '1' }));
  }
  if (x.expectContinue) res.writeContinue();
  // From here a refusal does not wait for the body: it was being read (and timed) already.
  x.bodyStarted = true;
  readBody(req, declared.bytes, deps.deadlines, (body) => {
    deps.bodyBytes.release(declared.bytes);
    x.step((exchange) => checkBody(exchange, body));
  });
}

function checkBody(x: Exchange, body: BodyResult): void | Promise<void> {
  const { deps, req, res, ip } = x;
  if (body.kind === 'aborted') {
    // The client is gone, or the client-error handler is answering the truncated request and
    // closes the socket itself once the answer is out.
    if (!req.socket.writableEnded) req.socket.destroy();
    return;
  }
  if (body.kind !== 'body') {
    const error = body.kind === 'timeout'
      ? new ApiError('AGENTD_REQUEST_TIMEOUT', 'Request body not received in time')
      : new ApiError('AGENTD_BAD_REQUEST', 'Request body longer than Content-Length');
    // The rest of the body may still trickle in: answer if the socket can take it, never reuse it.
    if (req.socket.writable) x.refuse(error);
    else deps.audit.rejected(ip, error);
    destroyAfterAnswer(req, res);
    return;
  }
  x.bodyRead = true;
  // Everything from here on is synchronous: no other request can slip in between a replay or
  // idempotency check and the matching remember. (A durable intake checks and records in one
  // commit of its own.)
  const now = deps.now();

  let freshness: { timestamp: string; seconds: number } | undefined;
  const signature = headerValue(req, 'x-service-signature');
  if (deps.secret !== '') {
    if (deps.replay !== null) {
      const check = deps.replay.checkTimestamp(headerValue(req, 'x-service-timestamp'), now);
      if (!check.ok) return x.refuse(unauthorized(check.error));
      freshness = check;
    }
    if (signature === undefined) return x.refuse(unauthorized('Missing X-Service-Signature'));
    if (!signatureMatches(deps.secret, body.bytes, signature, freshness?.timestamp)) {
      return x.refuse(unauthorized('Invalid X-Service-Signature'));
    }
    // With a durable intake the intake checks (and records) the signature, where every process
    // sharing its store sees it; the memory here would forget it at the next restart.
    if (deps.intake === null && deps.replay !== null && deps.replay.isReplay(signature, now)) return x.refuse(replayed());
  }

  const payload = parsePayload(body.bytes);
  if (!payload.ok) return x.refuse(payload.error);

  const requestId = headerValue(req, 'x-request-id');
  const message: WebhookMessage = {
    content: payload.prompt,
    sender: payload.sender,
    metadata: { webhook_headers: pickWebhookHeaders(req.headers) },
    received_at: isoTime(now),
  };
  if (deps.intake !== null) {
    const record = freshness !== undefined && signature !== undefined ? deps.replay?.recordOf(signature, freshness.seconds) : undefined;
    return admitDurably(deps, deps.intake, res, ip, message, requestId, record);
  }

  if (deps.requestIds !== null && requestId !== undefined) {
    const repeat = deps.requestIds.check(payload.sender, requestId, payload.prompt, now);
    if (repeat === 'conflict') return x.refuse(idempotencyConflict());
    if (repeat === 'duplicate') {
      deps.audit.accepted(ip, payload.sender, payload.prompt, true);
      return sendQueued(res);
    }
  }
  if (deps.queue.isFull) return x.refuse(new ApiError('AGENTD_AT_CAPACITY', 'Queue full, retry later'));
  if (freshness !== undefined && signature !== undefined && !deps.replay?.remember(signature, freshness.seconds, now)) {
    return x.refuse(new ApiError('AGENTD_AT_CAPACITY', 'Replay protection memory full, retry later'));
  }
  deps.queue.push(message);
  if (deps.requestIds !== null && requestId !== undefined) deps.requestIds.remember(payload.sender, requestId, payload.prompt, now);
  deps.audit.accepted(ip, payload.sender, payload.prompt);
  sendQueued(res);
}

const replayed = () => new ApiError('AGENTD_WEBHOOK_REPLAY', 'Request already received (replayed signature)');
const idempotencyConflict = () =>
  new ApiError('AGENTD_IDEMPOTENCY_CONFLICT', 'X-Request-Id was already used by this sender with a different prompt');

/**
 * The durable path: 202 only once the message and the audit event saying so are committed, in one
 * commit (a duplicate: its event, in the commit of the check that found it). The intake records
 * the signature in the same commit as the message, and only then: a message not kept (full,
 * failed) leaves no record, so the sender's retry of the same request is not taken for a replay,
 * and of two processes receiving the same signed request exactly one keeps it.
 */
async function admitDurably(
  deps: HandlerDeps,
  intake: WebhookIntake,
  res: ServerResponse,
  ip: string,
  message: WebhookMessage,
  requestId: string | undefined,
  signature: SignatureToRecord | undefined,
): Promise<void> {
  const outcome = await intake.accept(message, requestId, signature, deps.audit.acceptance(ip, message.sender, message.content));
  if (outcome === 'full' || outcome === 'replay' || outcome === 'conflict') {
    const refusal = outcome === 'replay' ? replayed()
      : outcome === 'conflict' ? idempotencyConflict()
        : new ApiError('AGENTD_AT_CAPACITY', 'Queue full, retry later');
    sendError(res, refusal);
    deps.audit.rejected(ip, refusal);
    return;
  }
  sendQueued(res);
}

function destroyAfterAnswer(req: IncomingMessage, res: ServerResponse): void {
  const destroy = () => void req.socket.destroy();
  if (!res.headersSent || res.writableFinished) return destroy();
  res.once('finish', destroy);
  res.once('close', destroy);
}

/** Node joins repeated custom headers into one string; a list only appears for set-cookie. */
function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** Name and stack frames only: an error message could quote the request. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return typeof error;
  const frames = (error.stack ?? '').split('\n').slice(1, 6).join('\n');
  return `${error.name}\n${frames}`;
}
