import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { RouteOptions } from 'fastify';
import type { Logger as PinoLogger } from 'pino';
import { SECURITY_HEADERS } from '../listener/headers.js';
import type { HttpRequestMetrics } from '../metrics/index.js';
import type { Pipeline } from './pipeline.js';
import { REQUEST_ID_HEADER, requestIdOf, requestLineFields, roundedMs, writeRequestLine } from './request-id.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route's 200 body never changes (the authenticated health check): an authenticated GET or
     * HEAD of its exact path is answered before Fastify (`FixedAnswers`). Its handler sends the same body.
     */
    fixedAnswer?: string;
  }
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** One fixed answer, built whole when its route is registered. */
interface Fixed {
  /**
   * A string, not a Buffer: Node then writes status line, headers and body as one piece instead of
   * a header string and a body buffer side by side (as the webhook's 202 does, channels/webhook/respond.ts).
   */
  body: string;
  /**
   * Its headers in writeHead's flat `[name, value, …]` form, the request id's value left empty:
   * a copy and one slot set per request, instead of an object spread from the security headers.
   * All strings: Node validates every value as a string, and would convert a number each time.
   */
  headers: readonly string[];
  /** The request line's method, route and status, serialised once (`requestLineFields`). */
  lineFields: string;
  method: 'GET' | 'HEAD';
}

/**
 * Answers that never change, given without Fastify's per-request objects, routing and hooks: on
 * the authenticated health check those were most of a request's cost. The request passes the same
 * gate first (`Pipeline.admitsWithKey`: the key compared in constant time, the rate limit, the
 * listener's refusals), and the answer carries what Fastify's would: the security headers, the
 * request id, the request line in the log and the metrics. A HEAD gets the same headers without
 * the body, as Fastify's HEAD route for a GET gives them. Anything else — another method, a query
 * string, a trailing slash, other case or encoding, a missing or wrong key, a refusal — goes to
 * Fastify unchanged, so nothing is routed or refused differently.
 */
export class FixedAnswers {
  /** Exact raw URL → its answer, per method. Maps, so no URL reaches an object's prototype. */
  private readonly gets = new Map<string, Fixed>();
  private readonly heads = new Map<string, Fixed>();

  constructor(
    private readonly pipeline: Pipeline,
    private readonly log: PinoLogger,
    private readonly metrics?: HttpRequestMetrics,
  ) {}

  /** Called for every route as it is registered (`onRoute`), Fastify's HEAD route for a GET included. */
  add(route: RouteOptions): void {
    const text = route.config?.fixedAnswer;
    if (typeof text !== 'string') return;
    const headers = [
      ...Object.entries(SECURITY_HEADERS).flat(), REQUEST_ID_HEADER, '', 'content-type', JSON_TYPE, 'content-length', String(Buffer.byteLength(text)),
    ];
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of ['GET', 'HEAD'] as const) {
      if (!methods.includes(method)) continue;
      const fixed = { body: text, headers, lineFields: requestLineFields(method, route.url, 200), method };
      (method === 'GET' ? this.gets : this.heads).set(route.url, fixed);
    }
  }

  /** True when `request` was answered here; false leaves it to Fastify. */
  answer(request: IncomingMessage, response: ServerResponse): boolean {
    if (request.url === undefined) return false;
    const fixed = request.method === 'GET' ? this.gets.get(request.url) : request.method === 'HEAD' ? this.heads.get(request.url) : undefined;
    if (fixed === undefined) return false;
    const started = performance.now();
    if (!this.pipeline.admitsWithKey(request)) return false;
    const id = requestIdOf(request);
    const headers = fixed.headers.slice();
    headers[ID_SLOT] = id;
    response.writeHead(200, headers);
    // Node sends no body in answer to a HEAD (`_hasBody` is false), whatever is passed here.
    response.end(fixed.body);
    const elapsedMs = performance.now() - started;
    this.metrics?.record(request.url, fixed.method, 200, elapsedMs);
    // The id came from requestIdOf: nothing in it for JSON to escape.
    writeRequestLine(this.log, `"${id}"`, fixed.lineFields, roundedMs(elapsedMs));
    return true;
  }
}

/** Where the request id's value sits in `Fixed.headers`: right after the security headers' pairs. */
const ID_SLOT = Object.keys(SECURITY_HEADERS).length * 2 + 1;
