import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { emitInBackground } from '../audit/log.js';
import type { AuditSampler } from '../audit/sampler.js';
import type { AuditInput, AuditSink } from '../storage/ports/audit.js';
import type { Logger } from '../log.js';
import type { ServiceMetrics } from '../metrics/index.js';
import { requestClientIp } from '../listener/client-ip.js';
import { constantTimeEqual } from '../security/secrets/compare.js';
import { HTML_SECURITY_HEADERS, SECURITY_HEADERS } from '../listener/headers.js';
import { NUL_REFUSED, nulField } from '../security/input/nul.js';
import type { RateDecision, RateLimiter } from '../security/rate-limit/rate-limiter.js';
import { apiKeyChecker, offeredApiKey, UNUSABLE_CREDENTIAL } from './auth.js';
import { ApiError, coordinationUnavailable, expectationFailed, forbidden, invalidField, rateLimited, shuttingDown, unauthorized } from '../listener/errors.js';
import { REQUEST_ID_HEADER } from './request-id.js';
import { readCookie } from './web-sessions.js';
import { type WebSession, type WebSessionStore } from '../storage/ports/web-sessions.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Client address per the trust_proxy setting (rate limit and audit key). */
    clientAddress: string;
    /** The web session when the request was authenticated by the session cookie, else null. */
    webSession: WebSession | null;
  }
}

export const CSRF_FAILED = 'CSRF token missing or invalid';

/** Methods that change state: a cookie-authenticated one must carry X-CSRF-Token. */
export const UNSAFE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export interface PipelineOptions {
  apiKey: string;
  trustProxy: boolean;
  /** In memory (answers at once) or shared between replicas (a Promise; a rejection is a 503). */
  rateLimiter: RateLimiter;
  /**
   * The `browser` window's limiter, more generous than the API's (docs/api.md#rate-limits); without
   * it that window is kept by `rateLimiter`, at the API's size.
   */
  browserRateLimiter?: RateLimiter;
  audit: AuditSink;
  auditSampler: AuditSampler;
  log: Logger;
  /** Browser sessions; without it only the API key authenticates. */
  webSessions?: WebSessionStore;
  /** Name of the session cookie (`api.cookie_name`). */
  cookieName?: string;
  /** The app's metrics: requests and their durations, rate-limit refusals. */
  metrics?: ServiceMetrics;
  /**
   * The browser's paths served without credentials: the console's pages and assets (counted in the
   * `browser` window; still 401 when the configured key is empty or a credential is offered and
   * wrong). The session cookie is not consulted for them, so no CSRF check applies either: the
   * login form cannot send the header, and its own credential is the key in the form.
   */
  isPublicPath?: (path: string) => boolean;
  /**
   * Requests that carry their credential in the body (the login form): the pipeline counts them in
   * no window, and the route does once it has compared the credential (`Pipeline.countAttempt`).
   */
  countsItself?: (method: string, path: string) => boolean;
}

/**
 * The per-client-IP windows a request is counted in (docs/api.md#rate-limits). A request is
 * counted after its credential has been compared (in constant time), in the window of what it
 * turned out to be, so a stranger's failures, anonymous requests and the console's own page loads
 * from the operator's address never use up the operator's API window:
 *   - `operator`: API requests that authenticated (right key, live session cookie);
 *   - `anonymous`: the probes (`/healthz`, `/api/v1/ready`) without a credential;
 *   - `browser`: the console's pages and assets, and a login with the right key, in a larger window
 *     (`browserRateLimiter`), so reloading the console never locks its operator out of the API;
 *   - `failed-auth`: every refused credential (wrong, missing or malformed key; unknown cookie; CSRF
 *     mismatch; a login form with the wrong key). Past the limit these get 429 instead of 401.
 */
export type RateWindow = 'operator' | 'anonymous' | 'browser' | 'failed-auth';

const WINDOW_PREFIX: Record<Exclude<RateWindow, 'operator'>, string> = { anonymous: 'anon:', browser: 'web:', 'failed-auth': 'auth-fail:' };

/** The limiter key of a client's window; the operator's is the bare address, as before the windows were split. */
export function rateKey(window: RateWindow, ip: string): string {
  return window === 'operator' ? ip : `${WINDOW_PREFIX[window]}${ip}`;
}

/** What authentication decided: the window the request counts in (null: the route counts it), and its refusal if any. */
interface Verdict {
  window: RateWindow | null;
  refusal: ApiError | null;
}

const AUTHENTICATED: Verdict = Object.freeze({ window: 'operator', refusal: null });
const ANONYMOUS: Verdict = Object.freeze({ window: 'anonymous', refusal: null });
const BROWSER: Verdict = Object.freeze({ window: 'browser', refusal: null });
const COUNTED_BY_ROUTE: Verdict = Object.freeze({ window: null, refusal: null });
const failed = (refusal: ApiError): Verdict => ({ window: 'failed-auth', refusal });

/** Set by the listener on a request whose `Expect` header is not `100-continue` (see server.ts). */
export const UNMET_EXPECTATION = Symbol('agentd.unmetExpectation');
/** The operator-window hit `admitsWithKey` already counted for a request it left to Fastify. */
const COUNTED = Symbol('agentd.countedHit');
interface Counted {
  [UNMET_EXPECTATION]?: true;
  [COUNTED]?: RateDecision | Promise<RateDecision>;
}

/** The path served to load balancers and supervisors without a key (still rate limited). */
export const HEALTHZ_PATH = '/healthz';
/** Readiness, for load balancers too: without a key, revealing only whether the database and Redis answer. */
export const READY_PATH = '/api/v1/ready';
/**
 * The probes are rate limited while the shared windows can be read, and pass when they cannot: a
 * Redis outage must leave liveness answering 200 and readiness naming Redis as what is down,
 * instead of both failing closed like the routes that do work.
 */
const PROBE_PATHS = new Set([HEALTHZ_PATH, READY_PATH]);

/** Refusal of a request, or null to go on; a Promise only when a session cookie had to be looked up. */
export type Gate = (request: FastifyRequest, reply: FastifyReply) => ApiError | null | Promise<ApiError | null>;

export interface Pipeline {
  /**
   * The request pipeline, in this order (docs/api.md#order-of-checks):
   *   1. security headers and X-Request-Id (first, so every answer carries them, refusals included;
   *      what the request does afterwards is given `request.id` by its handler)
   *   2. authentication: every offered credential must be right, else the session cookie
   *      (before the body is read: an anonymous client cannot make us parse 1 MiB), and CSRF for
   *      unsafe methods authenticated by the cookie
   *   3. rate limit per client IP, in the window of what step 2 found (see `RateWindow`): a 429
   *      takes the place of the refusal or the answer. Comparing first is what keeps the right key
   *      usable while a stranger on the same address fails; guesses past the limit are still
   *      refused, and what makes guessing hopeless is the key's length, not the limit.
   *   4. what the listener itself refuses: an unmet `Expect`, a request arriving while closing
   * then Fastify parses and validates the body against the route schema, and the handler runs.
   * Also run for requests Fastify refuses before routing (see `frameworkErrors` in server.ts).
   */
  gate: Gate;
  /**
   * For answers given before Fastify (fixed-answers.ts): true when the gate would let `raw` through
   * as a request authenticated by the API key, nothing the listener refuses applies and its hit in
   * the operator window, counted now, is within the limit. Otherwise false, with the hit's decision
   * (if it was counted) kept on the request so that `gate`, which Fastify runs next, does not count
   * it twice. The path is the caller's to check (no NUL, no route that authenticates itself).
   */
  admitsWithKey(raw: IncomingMessage): boolean;
  /** Install `gate` as the one onRequest hook (each extra hook is a measurable cost on every request). */
  install(app: FastifyInstance): void;
  /**
   * Counts a request the route authenticates itself (`countsItself`): in the browser window when
   * its credential matched, else in the failed-authentication window; the 429 to answer, or null.
   */
  countAttempt(request: FastifyRequest, succeeded: boolean): Promise<ApiError | null>;
}

export function createPipeline(options: PipelineOptions): Pipeline {
  const keyMatches = apiKeyChecker(options.apiKey);
  let closing = false;
  const listenerRefusal = (request: FastifyRequest): ApiError | null => {
    if (closing) return shuttingDown({ connection: 'close' });
    if ((request.raw as Counted)[UNMET_EXPECTATION] === true) {
      return expectationFailed();
    }
    return null;
  };
  const afterAuthentication = (request: FastifyRequest, verdict: Verdict): ApiError | null | Promise<ApiError | null> => {
    const next = (): ApiError | null => verdict.refusal ?? listenerRefusal(request) ?? nulInUrl(request);
    if (verdict.window === null) return next();
    const limited = rateLimit(request, options, verdict.window);
    if (limited === null) return next();
    // Only shared windows answer later; the in-memory limiter keeps this path synchronous.
    if (limited instanceof Promise) return limited.then((error) => error ?? next());
    return limited;
  };
  const gate: Gate = (request, reply) => {
    reply.headers(SECURITY_HEADERS).header(REQUEST_ID_HEADER, request.id);
    request.clientAddress = requestClientIp(request.raw.socket, request.headers['x-forwarded-for'], options.trustProxy);
    const verdict = authenticate(request, options, keyMatches);
    // Only a cookie has to be looked up in the session store; a key is decided synchronously.
    if (verdict instanceof Promise) return verdict.then((decided) => afterAuthentication(request, decided));
    return afterAuthentication(request, verdict);
  };
  return {
    gate,
    admitsWithKey(raw) {
      if (closing || (raw as Counted)[UNMET_EXPECTATION] === true || !keyMatches(offeredApiKey(raw.headers))) return false;
      const ip = requestClientIp(raw.socket, raw.headers['x-forwarded-for'], options.trustProxy);
      const decision = options.rateLimiter.hit(rateKey('operator', ip));
      if (!(decision instanceof Promise)) {
        if (decision.allowed) return true;
      } else {
        // The gate takes the answer over within this turn; until then a rejection is not unhandled.
        decision.catch(() => undefined);
      }
      (raw as Counted)[COUNTED] = decision;
      return false;
    },
    install(app) {
      app.decorateRequest('clientAddress', '');
      app.decorateRequest('webSession', null);
      app.addHook('onRequest', (request, reply, done) => {
        const refusal = gate(request, reply);
        if (refusal instanceof Promise) refusal.then((error) => done(error ?? undefined), done);
        else done(refusal ?? undefined);
      });
      // Fastify's own 503 while closing carries neither the envelope nor the security headers, so
      // it is turned off (server.ts) and answered by the gate instead.
      app.addHook('preClose', (done) => {
        closing = true;
        done();
      });
    },
    countAttempt: async (request, succeeded) => rateLimit(request, options, succeeded ? 'browser' : 'failed-auth'),
  };
}

/**
 * A path or query parameter holding NUL (`%00`), refused before any handler or store sees it (see
 * security/input/nul.ts; bodies are checked by their parsers). Only a URL with `%00` is looked into.
 */
function nulInUrl(request: FastifyRequest): ApiError | null {
  if (!(request.raw.url ?? '').includes('%00')) return null;
  const param = nulField(request.params);
  if (param !== null) return invalidField(`path parameter "${param}" ${NUL_REFUSED}`);
  const query = nulField(request.query);
  return query === null ? null : invalidField(`query parameter "${query}" ${NUL_REFUSED}`);
}

function rateLimit(request: FastifyRequest, options: PipelineOptions, window: RateWindow): ApiError | null | Promise<ApiError | null> {
  const ip = request.clientAddress;
  const limiter = window === 'browser' ? options.browserRateLimiter ?? options.rateLimiter : options.rateLimiter;
  const counted = window === 'operator' ? (request.raw as Counted)[COUNTED] : undefined;
  const decision = counted ?? limiter.hit(rateKey(window, ip));
  if (decision instanceof Promise) {
    // Fail closed: a window that cannot be read is never taken as room to spare.
    return decision.then(
      (shared) => overLimit(request, options, ip, window, shared),
      () => (PROBE_PATHS.has(pathOf(request)) ? null : coordinationUnavailable()),
    );
  }
  return overLimit(request, options, ip, window, decision);
}

function overLimit(request: FastifyRequest, options: PipelineOptions, ip: string, window: RateWindow, decision: RateDecision): ApiError | null {
  if (decision.allowed) return null;
  options.metrics?.rateLimited('api');
  const sample = options.auditSampler.take(`rate:${rateKey(window, ip)}`);
  if (sample) {
    refusal(options, {
      event_type: 'web.rate_limit', category: 'web', result: 'deny', subsystem: 'http', source: ip,
      action: `${request.method} ${pathOf(request)}`, detail: { ip, window, suppressed_since_last: sample.suppressed },
      request_id: request.id,
    });
  }
  return rateLimited(decision.retryAfterSeconds);
}

function authenticate(
  request: FastifyRequest,
  options: PipelineOptions,
  keyMatches: (offered: string | null) => boolean,
): Verdict | Promise<Verdict> {
  const offered = offeredApiKey(request.headers);
  // A valid key decides (no cookie parsing, no CSRF): the hot path stays one header compare.
  if (keyMatches(offered)) return AUTHENTICATED;
  const path = pathOf(request);
  // An unset key refuses everything, the login page and existing cookies included (docs/decisions.md#fail-closed-on-an-empty-key).
  if (options.apiKey === '') return failed(offered !== null ? wrongKey(request, options, path, offered) : unauthorized());
  // Any credential that is offered and wrong refuses the request, whatever else it carries: a
  // live cookie next to it, or a public path. The cookie is only the credential of requests that
  // offer no key (the browser's).
  if (offered !== null) return failed(wrongKey(request, options, path, offered));
  if (PROBE_PATHS.has(path)) return ANONYMOUS;
  if (options.isPublicPath?.(path) === true) {
    return options.countsItself?.(request.method, path) === true ? COUNTED_BY_ROUTE : BROWSER;
  }
  const token = options.webSessions ? readCookie(request.headers.cookie, options.cookieName ?? 'service_operator_session') : null;
  if (token === null || !options.webSessions) return failed(unauthorized());
  return options.webSessions.lookup(token).then((session) => {
    if (session === null) return failed(unauthorized());
    request.webSession = session;
    const csrf = UNSAFE_METHODS.has(request.method) ? checkCsrf(request, session, options, path) : null;
    return csrf === null ? AUTHENTICATED : failed(csrf);
  });
}

function wrongKey(request: FastifyRequest, options: PipelineOptions, path: string, offered: string): ApiError {
  // Only attempts that offered a key are audited: a missing key is a misconfigured client, a
  // wrong key is someone guessing.
  const sample = options.auditSampler.take(`auth:${request.clientAddress}`);
  if (sample) {
    refusal(options, {
      event_type: 'web.auth', category: 'web', result: 'deny', subsystem: 'http', source: request.clientAddress,
      action: `${request.method} ${path}`,
      detail: {
        ip: request.clientAddress,
        reason: offered === UNUSABLE_CREDENTIAL ? 'malformed credential' : 'invalid API key',
        suppressed_since_last: sample.suppressed,
      },
      request_id: request.id,
    });
  }
  return unauthorized();
}

function checkCsrf(request: FastifyRequest, session: WebSession, options: PipelineOptions, path: string): ApiError | null {
  const header = request.headers['x-csrf-token'];
  if (typeof header === 'string' && constantTimeEqual(header, session.csrfToken)) return null;
  // Every mismatch is recorded (docs/api.md#browser-sessions-and-csrf); the per-IP rate limit already bounds the volume.
  refusal(options, {
    event_type: 'web.csrf', category: 'web', result: 'deny', severity: 'warning', subsystem: 'http',
    source: request.clientAddress, actor: 'operator', action: `${request.method} ${path}`,
    detail: {
      ip: request.clientAddress, web_session: session.id,
      reason: header === undefined ? 'missing X-CSRF-Token' : 'mismatched X-CSRF-Token',
    },
    request_id: request.id,
  });
  return forbidden(CSRF_FAILED);
}

/**
 * The request's web session whatever authenticated it: the pipeline's when the cookie did, else
 * the cookie read now (a request with a valid key skipped it). For routes that act on the browser
 * session itself (console page, logout).
 */
export async function webSessionOf(request: FastifyRequest, store: WebSessionStore, cookieName: string): Promise<WebSession | null> {
  if (request.webSession !== null) return request.webSession;
  const token = readCookie(request.headers.cookie, cookieName);
  return token === null ? null : store.lookup(token);
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

/**
 * Refusals are recorded without holding up the answer: a 401, 403 or 429 acknowledges nothing,
 * and the rate limit must stay cheap under a flood.
 */
function refusal(options: PipelineOptions, input: AuditInput): void {
  emitInBackground(options.audit, input, (error) =>
    options.log.error(`could not audit a refused request: ${(error as Error)?.message ?? String(error)}`, { request_id: input.request_id }));
}
