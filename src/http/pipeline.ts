import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuditSink } from '../audit/types.js';
import type { AuditSampler } from '../audit/sampler.js';
import { clientIp } from '../security/client-ip.js';
import { HTML_SECURITY_HEADERS, SECURITY_HEADERS } from '../security/headers.js';
import type { SlidingWindowRateLimiter } from '../security/rate-limiter.js';
import { apiKeyMatches, offeredApiKey } from './auth.js';
import { rateLimited, unauthorized } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Client address per the trust_proxy setting (rate limit and audit key). */
    clientAddress: string;
  }
}

export interface PipelineOptions {
  apiKey: () => string;
  trustProxy: boolean;
  rateLimiter: SlidingWindowRateLimiter;
  audit: AuditSink;
  auditSampler: AuditSampler;
  /** Paths served without credentials (still rate limited). */
  isPublicPath?: (path: string) => boolean;
}

/**
 * The request pipeline, in the order decisions.md fixes:
 *   1. security headers (first, so every later refusal carries them)
 *   2. rate limit per client IP (before authentication: key guessing is rate limited too)
 *   3. authentication (before the body is read: an anonymous client cannot make us parse 1 MiB)
 *   4. body validation (route schemas) → handler
 * Hooks run in registration order, so this function is the one place to read the order from.
 */
export function installPipeline(app: FastifyInstance, options: PipelineOptions): void {
  app.decorateRequest('clientAddress', '');
  app.addHook('onRequest', securityHeaders);
  app.addHook('onRequest', rateLimit(options));
  app.addHook('onRequest', authenticate(options));
  app.addHook('onSend', htmlHeaders);
}

function securityHeaders(_request: FastifyRequest, reply: FastifyReply, done: () => void): void {
  reply.headers(SECURITY_HEADERS);
  done();
}

function rateLimit(options: PipelineOptions) {
  return function rateLimitHook(request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void): void {
    const ip = clientIp(request.raw.socket.remoteAddress, request.headers['x-forwarded-for'], options.trustProxy);
    request.clientAddress = ip;
    const decision = options.rateLimiter.hit(ip);
    if (decision.allowed) return done();
    const sample = options.auditSampler.take(`rate:${ip}`);
    if (sample) {
      options.audit.emit({
        event_type: 'web.rate_limit', category: 'web', result: 'deny', subsystem: 'http', source: ip,
        action: `${request.method} ${pathOf(request)}`, detail: { ip, suppressed_since_last: sample.suppressed },
      });
    }
    done(rateLimited(decision.retryAfterSeconds));
  };
}

function authenticate(options: PipelineOptions) {
  return function authenticateHook(request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void): void {
    const path = pathOf(request);
    if (options.isPublicPath?.(path)) return done();
    const offered = offeredApiKey(request.headers);
    if (apiKeyMatches(options.apiKey(), offered)) return done();
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
    done(unauthorized());
  };
}

function htmlHeaders(_request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, payload: unknown) => void): void {
  const type = reply.getHeader('content-type');
  if (typeof type === 'string' && type.startsWith('text/html')) reply.headers(HTML_SECURITY_HEADERS);
  done(null, payload);
}

export function pathOf(request: FastifyRequest): string {
  const url = request.raw.url ?? '/';
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}
