import type { IncomingHttpHeaders } from 'node:http';
import { secretMatcher } from '../security/secrets/compare.js';

/**
 * What `offeredApiKey` returns for a credential that was offered but cannot be right: an
 * `Authorization` header that is not `Bearer <key>` (`Basic …`, a bare `Bearer`, extra words), an
 * empty `X-API-Key`, or two headers naming different keys. It matches no configured key.
 */
export const UNUSABLE_CREDENTIAL = '';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * The API key offered by a request: `Authorization: Bearer …` (preferred) or `X-API-Key`; null
 * when neither header is present. A header that is present always counts as an offered credential:
 * a malformed one is `UNUSABLE_CREDENTIAL`, never skipped in favour of another credential.
 */
export function offeredApiKey(headers: IncomingHttpHeaders): string | null {
  const authorization = headers.authorization;
  const headerKey = headers['x-api-key'];
  let bearer: string | null = null;
  if (authorization !== undefined) {
    const match = BEARER.exec(authorization);
    if (match === null) return UNUSABLE_CREDENTIAL;
    bearer = match[1] as string;
  }
  if (headerKey === undefined) return bearer;
  if (typeof headerKey !== 'string' || headerKey === '') return UNUSABLE_CREDENTIAL;
  // Both headers: they must name the same key (at most one of two different keys can be right).
  if (bearer !== null && bearer !== headerKey) return UNUSABLE_CREDENTIAL;
  return headerKey;
}

/**
 * A check for the configured key. An empty configured key matches nothing: docs/api.md#authentication makes an
 * unset key mean "every request is refused", never "no authentication".
 */
export function apiKeyChecker(configuredKey: string): (offered: string | null) => boolean {
  if (configuredKey === '') return () => false;
  const matches = secretMatcher(configuredKey);
  return (offered) => offered !== null && offered !== UNUSABLE_CREDENTIAL && matches(offered);
}
