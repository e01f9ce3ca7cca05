import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuditSampler } from '../audit/sampler.js';
import type { AuditSink } from '../audit/types.js';
import { clientIp } from '../security/client-ip.js';
import { HTML_SECURITY_HEADERS, SECURITY_HEADERS } from '../security/headers.js';
import type { SlidingWindowRateLimiter } from '../security/rate-limiter.js';
import { apiKeyChecker, offeredApiKey } from './auth.js';
import { ApiError, rateLimited, unauthorized } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Client address per the trust_proxy setting (rate limit and audit key). */
    clientAddress: string;
  }
}

export interface PipelineOptions {
  apiKey: string;
  trustProxy: boolean;
  rateLimiter: SlidingWindowRateLimiter;
  audit: AuditSink;
  auditSampler: AuditSampler;
  /** Paths served without credentials (still rate limited). */
  isPublicPath?: (path: string) => boolean;
}

/**
 * The request pipeline, in the order decisions.md fixes, as one hook (each extra hook is a
 * measurable cost on every request):
 *   1. security headers (first, so every later refusal carries them)
 *   2. rate limit per client IP (before authentication: key guessing is rate limited too)
 *   3. authentication (before the body is read: an anonymous client cannot make us parse 1 MiB)
 * then Fastify parses and validates the body against the route schema, and the handler runs.
 */
export function installPipeline(app: FastifyInstance, options: PipelineOptions): void {
  const keyMatches = apiKeyChecker(options.apiKey);
  app.decorateRequest('clientAddress', '');
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(SECURITY_HEADERS);
    const refusal = rateLimit(request, options) ?? authenticate(request, options, keyMatches);
    done(refusal ?? undefined);
  });
}

function rateLimit(request: FastifyRequest, options: PipelineOptions): ApiError | null {
  const ip = clientIp(request.raw.socket.remoteAddress, request.headers['x-forwarded-for'], options.trustProxy);
  request.clientAddress = ip;
  const decision = options.rateLimiter.hit(ip);
  if (decision.allowed) return null;
  const sample = options.auditSampler.take(`rate:${ip}`);
  if (sample) {
    options.audit.emit({
      event_type: 'web.rate_limit', category: 'web', result: 'deny', subsystem: 'http', source: ip,
      action: `${request.method} ${pathOf(request)}`, detail: { ip, suppressed_since_last: sample.suppressed },
    });
  }
  return rateLimited(decision.retryAfterSeconds);
}

function authenticate(request: FastifyRequest, options: PipelineOptions, keyMatches: (offered: string | null) => boolean): ApiError | null {
  const offered = offeredApiKey(request.headers);
  if (keyMatches(offered)) return null;
  const path = pathOf(request);
  if (options.isPublicPath?.(path)) return null;
  // Only attempts that offered a key are audited: a missing key is a misconfigured client, a
  // wrong key is someone guessing.
  if (offered !== null) {
    const sample = options.auditSampler.take(`auth:${request.clientAddress}`);
    if (sample) {
      options.audit.emit({
        event_type: 'web.auth', category: 'web', result: 'deny', subsystem: 'http', source: request.clientAddress,
        action: `${request.method} ${path}`,
        detail: { ip: request.clientAddress, reason: 'invalid API key', suppressed_since_last: sample.suppressed },
      });
    }
  }
  return unauthorized();
}

/** Send an HTML page with the extra headers every page carries (CSP, Referrer-Policy). */
export function sendHtml(reply: FastifyReply, html: string): FastifyReply {
  return reply.headers(HTML_SECURITY_HEADERS).type('text/html; charset=utf-8').send(html);
}

export function pathOf(request: FastifyRequest): string {
  const url = request.raw.url ?? '/';
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}
