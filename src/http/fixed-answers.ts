import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { RouteOptions } from 'fastify';
import type { Logger as PinoLogger } from 'pino';
import { SECURITY_HEADERS } from '../listener/headers.js';
import type { HttpRequestMetrics } from '../metrics/index.js';
import type { Pipeline } from './pipeline.js';
import { logRequest, REQUEST_ID_HEADER, requestIdOf, roundedMs } from './request-id.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route's 200 body never changes (the authenticated health check): an authenticated GET of
     * its exact path is answered before Fastify (`FixedAnswers`). Its handler sends the same body.
     */
    fixedAnswer?: string;
  }
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Answers that never change, given without Fastify's per-request objects, routing and hooks: on
 * the authenticated health check those were most of a request's cost. The request passes the same
 * gate first (`Pipeline.admitsWithKey`: the key compared in constant time, the rate limit, the
 * listener's refusals), and the answer carries what Fastify's would: the security headers, the
 * request id, the request line in the log and the metrics. Anything else — another method, a
 * query string, a trailing slash, other case or encoding, a missing or wrong key, a refusal — goes
 * to Fastify unchanged, so nothing is routed or refused differently.
 */
export class FixedAnswers {
  /** Exact raw URL → the answer's bytes. A Map, so no URL reaches an object's prototype. */
  private readonly answers = new Map<string, Buffer>();

  constructor(
    private readonly pipeline: Pipeline,
    private readonly log: PinoLogger,
    private readonly metrics?: HttpRequestMetrics,
  ) {}

  /** Called for every route as it is registered (`onRoute`). */
  add(route: RouteOptions): void {
    const body = route.config?.fixedAnswer;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (typeof body === 'string' && methods.includes('GET')) this.answers.set(route.url, Buffer.from(body));
  }

  /** True when `request` was answered here; false leaves it to Fastify. */
  answer(request: IncomingMessage, response: ServerResponse): boolean {
    if (request.method !== 'GET' || request.url === undefined) return false;
    const body = this.answers.get(request.url);
    if (body === undefined) return false;
    const started = performance.now();
    if (!this.pipeline.admitsWithKey(request)) return false;
    const id = requestIdOf(request);
    response.writeHead(200, { ...SECURITY_HEADERS, [REQUEST_ID_HEADER]: id, 'content-type': JSON_TYPE, 'content-length': body.length });
    response.end(body);
    const elapsedMs = performance.now() - started;
    this.metrics?.record(request.url, 'GET', 200, elapsedMs);
    logRequest(this.log, id, 'GET', request.url, 200, roundedMs(elapsedMs));
    return true;
  }
}
