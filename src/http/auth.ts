import type { IncomingHttpHeaders } from 'node:http';
import { secretMatcher } from '../security/compare.js';

/** The API key offered by a request: `Authorization: Bearer …` (preferred) or `X-API-Key`. */
export function offeredApiKey(headers: IncomingHttpHeaders): string | null {
  const authorization = headers.authorization;
  if (authorization !== undefined) {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
    if (match?.[1]) return match[1];
  }
  const headerKey = headers['x-api-key'];
  if (typeof headerKey === 'string' && headerKey !== '') return headerKey;
  return null;
}

/**
 * A check for the configured key. An empty configured key matches nothing: the spec makes an
 * unset key mean "every request is refused", never "no authentication".
 */
export function apiKeyChecker(configuredKey: string): (offered: string | null) => boolean {
  if (configuredKey === '') return () => false;
  const matches = secretMatcher(configuredKey);
  return (offered) => offered !== null && matches(offered);
}
