import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import type { HttpRequestMetrics } from '../metrics/index.js';

/** An offered `X-Request-Id` is kept only when it is short and plain: it is echoed and logged. */
const OFFERED_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

export const REQUEST_ID_HEADER = 'x-request-id';

/** Fastify's `genReqId`: the client's `X-Request-Id` when it is safe to repeat, else a fresh one. */
export function requestIdOf(raw: IncomingMessage): string {
  const offered = raw.headers[REQUEST_ID_HEADER];
  return typeof offered === 'string' && OFFERED_ID.test(offered) ? offered : randomUUID();
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
    const line = {
      request_id: request.id,
      method: request.method,
      route: request.routeOptions.url ?? null,
      status: reply.statusCode,
      duration_ms: Math.round(reply.elapsedTime * 10) / 10,
    };
    this.metrics?.record(line.route ?? undefined, line.method, line.status, reply.elapsedTime);
    if (error) reply.log.warn({ ...line, error: error.message }, 'request failed while sending');
    else reply.log.info(line, 'request');
  }

  override writeHeadError(error: Error, request: FastifyRequest, reply: FastifyReply): void {
    reply.log.warn({ request_id: request.id, status: reply.statusCode }, `could not send the response headers: ${error.message}`);
  }
}
