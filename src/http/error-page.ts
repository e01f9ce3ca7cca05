import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorPage } from '../console/pages.js';
import type { ApiError } from '../listener/errors.js';
import { HEALTHZ_PATH, pathOf, sendHtml } from './pipeline.js';
import { METRICS_PATH } from './resources/metrics/index.js';

/**
 * Whether a refusal goes to a person in a browser rather than to a program: the request asks for
 * HTML and not JSON (a navigation or the login form's post) and is for one of the browser's
 * addresses. The API (`/api/…`), the probe and the metrics keep the JSON envelope whatever they
 * are sent (docs/api.md#error-pages).
 */
export function wantsErrorPage(request: FastifyRequest): boolean {
  const accept = request.headers.accept;
  if (typeof accept !== 'string' || !accept.includes('text/html') || accept.includes('application/json')) return false;
  const path = pathOf(request);
  return !path.startsWith('/api/') && path !== HEALTHZ_PATH && path !== METRICS_PATH;
}

/** The refusal as a small HTML page: same status and headers as the envelope, plus the pages' CSP. */
export function sendErrorPage(reply: FastifyReply, error: ApiError, noKeyConfigured: boolean): FastifyReply {
  const { headline, advice } = explain(error, noKeyConfigured);
  return sendHtml(reply.code(error.statusCode).headers(error.headers), errorPage(error.statusCode, headline, advice));
}

/** What the operator reads: the catalogue's message and what to do about it. */
function explain(error: ApiError, noKeyConfigured: boolean): { headline: string; advice: string } {
  switch (error.code) {
    case 'AGENTD_UNAUTHORIZED':
      return noKeyConfigured
        ? {
          headline: 'No API key is configured: set api.api_key',
          advice: 'Every request is refused until a key is set: put it in api.api_key in the config, or in the ' +
            'SERVICE_API_KEY environment variable (agentd init writes a fresh one), then restart agentd.',
        }
        : { headline: error.message, advice: 'Sign in at /login with the operator key.' };
    case 'AGENTD_RATE_LIMITED':
      return {
        headline: `Too many requests, retry in ${error.headers['retry-after'] ?? '60'} s`,
        advice: 'Requests from this address are limited per minute; reload the page once the wait is over.',
      };
    default:
      return {
        headline: error.message,
        advice: error.statusCode >= 500 ? 'agentd cannot serve this page right now; retry in a moment.' : 'Go back to the console and try again.',
      };
  }
}
