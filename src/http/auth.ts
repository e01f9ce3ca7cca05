import type { IncomingHttpHeaders } from 'node:http';
import { constantTimeEqual } from '../security/compare.js';

export type Credential = { kind: 'api_key' } | { kind: 'cookie'; sessionToken: string };

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
 * True when the request carries the configured key. An empty configured key matches nothing:
 * the spec makes an unset key mean "every request is refused", never "no authentication".
 */
export function apiKeyMatches(configuredKey: string, offered: string | null): boolean {
  if (configuredKey === '' || offered === null) return false;
  return constantTimeEqual(offered, configuredKey);
}
