import { createCipheriv, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger as PinoLogger } from 'pino';
import { writeLine } from '../log.js';
import type { HttpRequestMetrics } from '../metrics/index.js';

/** An offered `X-Request-Id` is kept only when it is short and plain: it is echoed and logged. */
const OFFERED_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

export const REQUEST_ID_HEADER = 'x-request-id';

/** Fastify's `genReqId`: the client's `X-Request-Id` when it is safe to repeat, else a fresh one. */
export function requestIdOf(raw: IncomingMessage): string {
  const offered = raw.headers[REQUEST_ID_HEADER];
  return typeof offered === 'string' && OFFERED_ID.test(offered) ? offered : freshRequestId();
}

/** Ids made per batch: one cipher call and one hex conversion for them all. */
const BATCH = 256;
const BLOCK = 16;

/**
 * Each process encrypts a counter with a key of its own (AES, one block per id, a permutation: no
 * two counters give the same block) and the ids look random. A plain counter told a client that
 * saw two of its own ids how many requests the service answered in between.
 */
const cipher = createCipheriv('aes-128-ecb', randomBytes(16), null).setAutoPadding(false);
const counters = Buffer.alloc(BATCH * BLOCK);
let counted = 0;
let batchHex = '';
let next = BATCH;

/**
 * A generated id: a UUID (RFC 9562 version 8, the layout for UUIDs built their own way) of the
 * encrypted counter, 122 of its 128 bits (the rest are the version and variant): as unlikely to
 * repeat across restarts and replicas as a random UUID, and telling nothing of the traffic
 * (docs/api.md#request-ids). A random UUID per request was a sixth of the authenticated health
 * check's own work; a batch of these costs a fraction of one.
 */
export function freshRequestId(): string {
  if (next === BATCH) encryptBatch();
  const at = next++ * 2 * BLOCK;
  const h = batchHex;
  return `${h.slice(at, at + 8)}-${h.slice(at + 8, at + 12)}-${h.slice(at + 12, at + 16)}-${h.slice(at + 16, at + 20)}-${h.slice(at + 20, at + 32)}`;
}

function encryptBatch(): void {
  for (let i = 0; i < BATCH; i++) {
    counted++;
    counters.writeUInt32BE(Math.floor(counted / 2 ** 32), i * BLOCK + 8);
    counters.writeUInt32BE(counted >>> 0, i * BLOCK + 12);
  }
  const blocks = cipher.update(counters);
  for (let i = 0; i < BATCH; i++) {
    // The version (8) in the high half of byte 6, the variant (10) in the top bits of byte 8.
    blocks[i * BLOCK + 6] = 0x80 | (blocks[i * BLOCK + 6]! & 0x0f);
    blocks[i * BLOCK + 8] = 0x80 | (blocks[i * BLOCK + 8]! & 0x3f);
  }
  batchHex = blocks.toString('hex');
  next = 0;
}

/**
 * The line of one answered request. Written straight to the destination in the exact shape pino
 * gives the same call (`log.info(fields, 'request')`): serialising through pino was a sixth of the
 * cost of an authenticated health request. Every field is ours or validated (the id by
 * requestIdOf, the method by Node's parser), so the censor pino's hook applies has nothing to find.
 */
export function logRequest(log: PinoLogger, id: string, method: string, route: string | null, status: number, durationMs: number): void {
  writeRequestLine(log, JSON.stringify(id), requestLineFields(method, route, status), durationMs);
}

/**
 * The part of a request line between its id and its duration. An answer that never changes
 * (fixed-answers.ts) builds it once instead of serialising its method and route per request.
 */
export function requestLineFields(method: string, route: string | null, status: number): string {
  return `,"method":${JSON.stringify(method)},"route":${route === null ? 'null' : JSON.stringify(route)},"status":${status},"duration_ms":`;
}

/**
 * The id of a request line as JSON. One from requestIdOf needs no escaping (`[A-Za-z0-9._:@-]` or
 * a UUID), so the caller that got it from there quotes it without serialising it.
 */
export function writeRequestLine(log: PinoLogger, idJson: string, fields: string, durationMs: number): void {
  if (!log.isLevelEnabled('info')) return;
  writeLine(log, `{"level":"info","time":${Date.now()},"request_id":${idJson}${fields}${durationMs},"msg":"request"}\n`);
}

/** Milliseconds as the request line and the metrics show them: to a tenth. */
export function roundedMs(ms: number): number {
  return Math.round(ms * 10) / 10;
}

/**
 * Fastify's request logging, reduced to one line per answered request: method, route, status,
 * duration and id — never a header value, a query string or a body (Fastify's own lines carry
 * the URL, whose query may hold a token). The same line is counted in the HTTP metrics: this is
 * already called once per answered request, and a second onResponse hook would cost every request.
 */
export class RequestLog extends LogController {
  constructor(private readonly metrics?: HttpRequestMetrics) {
    super({ disableRequestLogging: false, requestIdLogLabel: 'request_id' });
  }

  override incomingRequest(): void {}

  override routeNotFound(): void {}

  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    const route = request.routeOptions.url ?? null;
    const durationMs = roundedMs(reply.elapsedTime);
    this.metrics?.record(route ?? undefined, request.method, reply.statusCode, reply.elapsedTime);
    if (error) {
      const line = { request_id: request.id, method: request.method, route, status: reply.statusCode, duration_ms: durationMs };
      reply.log.warn({ ...line, error: error.message }, 'request failed while sending');
      return;
    }
    logRequest(reply.log as PinoLogger, request.id, request.method, route, reply.statusCode, durationMs);
  }

  override writeHeadError(error: Error, request: FastifyRequest, reply: FastifyReply): void {
    reply.log.warn({ request_id: request.id, status: reply.statusCode }, `could not send the response headers: ${error.message}`);
  }
}
