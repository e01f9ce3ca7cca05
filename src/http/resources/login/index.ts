import type { TLSSocket } from 'node:tls';
import type { FastifyRequest } from 'fastify';
import { CONSOLE_SCRIPT_PATH, CONSOLE_STYLE_PATH, FAVICON_ICO_PATH, FAVICON_PATH, LOGIN_SCRIPT_PATH } from '../../../console/assets.js';
import { loginPage } from '../../../console/pages.js';
import { apiKeyChecker } from '../../auth.js';
import { ok, okSchema } from '../../../listener/envelope.js';
import { sendHtml, webSessionOf } from '../../pipeline.js';
import { readCookie } from '../../web-sessions.js';
import type { ResourcePlugin } from '../context.js';

/**
 * Paths the pipeline serves without a credential (still rate limited, still 401 with an empty
 * configured key). `/` is among them so that a browser without a session is sent to the login
 * page instead of getting a JSON 401; the page itself checks the session. The console's scripts
 * and stylesheet are the same for everyone and hold no secret; the login page needs its script and the stylesheet.
 * All are counted in the browser's own window (docs/api.md#rate-limits), not the API's.
 */
export const WEB_PUBLIC_PATHS: ReadonlySet<string> = new Set(['/', '/login', CONSOLE_SCRIPT_PATH, CONSOLE_STYLE_PATH, LOGIN_SCRIPT_PATH, FAVICON_PATH, FAVICON_ICO_PATH]);

/**
 * The login form's POST carries its credential in the body: the pipeline lets it through uncounted
 * and the route counts it once the key is compared, so a stranger's failed logins never use up the
 * window of the operator who logs in with the right key from the same address.
 */
export function isLoginForm(method: string, path: string): boolean {
  return method === 'POST' && path === '/login';
}

/**
 * The browser's way in: the login form, the session cookie it sets, and logout. Registered without
 * the API prefix: these are the browser's addresses.
 */
export const loginPlugin: ResourcePlugin<'web' | 'audit'> = async (app, { web, audit }) => {
  const ctx = { ...web, audit };
  const keyMatches = apiKeyChecker(ctx.apiKey);
  // Logins already counted by the handler; any other that fails (a body that does not parse or
  // validate) is counted as a failed authentication by the error handler below, so malformed
  // posts are limited too.
  const counted = new WeakSet<FastifyRequest>();
  const answerError = app.errorHandler;

  app.get('/login', {
    schema: { hide: true, querystring: { type: 'object', properties: { error: { type: 'string' } } } },
  }, (request, reply) => sendHtml(reply, loginPage(request.query.error === '1')));

  app.post('/login', {
    config: { formBody: true },
    schema: {
      hide: true,
      body: { type: 'object', properties: { api_key: { type: 'string', maxLength: 4096 } } },
    },
    errorHandler: async (error, request, reply) => {
      const limited = counted.has(request) ? null : await ctx.countAttempt(request, false);
      return answerError.call(app, limited ?? error, request, reply);
    },
  }, async (request, reply) => {
    const offered = request.body.api_key ?? null;
    const matched = keyMatches(offered);
    counted.add(request);
    const limited = await ctx.countAttempt(request, matched);
    if (limited !== null) throw limited;
    if (!matched) {
      // Every failed login within the limit is recorded (docs/api.md#browser-sessions-and-csrf); past it the 429 is (sampled).
      await ctx.audit.emit({
        event_type: 'web.login', category: 'web', result: 'deny', severity: 'warning', subsystem: 'http',
        source: request.clientAddress, action: 'POST /login',
        detail: { ip: request.clientAddress, reason: 'key mismatch' }, request_id: request.id,
      });
      return reply.redirect('/login?error=1', 303);
    }
    // A browser that logs in again gives up the session it had, so one browser holds one session.
    const previous = readCookie(request.headers.cookie, ctx.cookieName);
    if (previous !== null) await ctx.sessions.revoke(previous);
    const { token, session } = await ctx.sessions.create();
    reply.header('set-cookie', cookie(ctx.cookieName, token, ctx.sessions.ttlSeconds, overHttps(request, ctx.trustProxy)));
    await ctx.audit.emit({
      event_type: 'web.login', category: 'web', result: 'allow', subsystem: 'http', actor: 'operator',
      source: request.clientAddress, action: 'POST /login', detail: { ip: request.clientAddress, web_session: session.id },
      request_id: request.id,
    });
    return reply.redirect('/', 303);
  });

  // JSON, not a redirect: an HTML form cannot send X-CSRF-Token, so only the console's script
  // (fetch with the header) can log out, and it navigates to /login itself.
  app.post('/logout', {
    schema: {
      summary: 'End the browser session',
      operationId: 'logout',
      description:
        'Authenticated by the session cookie and its X-CSRF-Token header (or an API key). Revokes the session the ' +
        'cookie names and clears the cookie; logged_out says whether there was a live session to end.',
      tags: ['web'],
      response: {
        200: okSchema({ type: 'object', required: ['logged_out'], properties: { logged_out: { type: 'boolean' } } }),
      },
    },
  }, async (request, reply) => {
    const session = await webSessionOf(request, ctx.sessions, ctx.cookieName);
    const token = readCookie(request.headers.cookie, ctx.cookieName);
    const revoked = session !== null && token !== null && (await ctx.sessions.revoke(token));
    reply.header('set-cookie', cookie(ctx.cookieName, '', 0, overHttps(request, ctx.trustProxy)));
    if (revoked) {
      await ctx.audit.emit({
        event_type: 'web.logout', category: 'web', result: 'allow', subsystem: 'http', actor: 'operator',
        source: request.clientAddress, action: 'POST /logout', detail: { ip: request.clientAddress, web_session: session.id },
        request_id: request.id,
      });
    }
    return reply.send(ok({ logged_out: revoked }));
  });
};

/**
 * The session cookie. `Secure` only over HTTPS: a plain-HTTP loopback deployment must still be
 * able to log in, and a browser drops a Secure cookie set over HTTP.
 */
function cookie(name: string, value: string, maxAgeSeconds: number, secure: boolean): string {
  return `${name}=${value}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;
}

/** Direct TLS, or (only with trust_proxy) the proxy's leftmost X-Forwarded-Proto saying https. */
function overHttps(request: FastifyRequest, trustProxy: boolean): boolean {
  if ((request.raw.socket as TLSSocket).encrypted === true) return true;
  if (!trustProxy) return false;
  const header = request.headers['x-forwarded-proto'];
  const first = (Array.isArray(header) ? header[0] : header)?.split(',')[0]?.trim().toLowerCase();
  return first === 'https';
}
