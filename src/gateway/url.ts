import { InvalidUrlError } from './errors.js';

/** Step 1 of the request flow: the URL must be usable before anything else looks at it. */

export const MAX_URL_LENGTH = 8192;

export type QueryValue = string | number | boolean | null | undefined | readonly (string | number | boolean)[];
export type Query = Readonly<Record<string, QueryValue>> | URLSearchParams;

/**
 * Parse and check a request URL, then append `query`. WHATWG parsing normalises the host
 * (`http://2130706433/` becomes `127.0.0.1`, `http://a@b/` has host `b`), so everything after this
 * sees one canonical destination. Credentials in the URL are refused rather than silently sent or
 * dropped: they belong in an Authorization header, where the caller can see them.
 */
export function targetUrl(input: string | URL, query?: Query): URL {
  const text = typeof input === 'string' ? input : input.href;
  if (text.length > MAX_URL_LENGTH) throw new InvalidUrlError(`URL is longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidUrlError('not a valid absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidUrlError(`scheme "${url.protocol.slice(0, -1).slice(0, 32)}" is not allowed (only http and https)`);
  }
  if (url.hostname === '') throw new InvalidUrlError('URL has no host');
  if (url.username !== '' || url.password !== '') {
    throw new InvalidUrlError('credentials in the URL are not supported; send an Authorization header');
  }
  if (url.port === '0') throw new InvalidUrlError('port 0 is not a destination');
  if (url.hash !== '') url.hash = '';
  if (query) appendQuery(url, query);
  if (url.href.length > MAX_URL_LENGTH) throw new InvalidUrlError(`URL is longer than ${MAX_URL_LENGTH} characters`);
  return url;
}

function appendQuery(url: URL, query: Query): void {
  const entries: [string, string][] = [];
  if (query instanceof URLSearchParams) query.forEach((value, key) => entries.push([key, value]));
  else {
    for (const [key, value] of Object.entries(query)) {
      if (value === null || value === undefined) continue;
      if (Array.isArray(value)) for (const item of value as readonly unknown[]) entries.push([key, String(item)]);
      else entries.push([key, String(value)]);
    }
  }
  if (entries.length === 0) return;
  const params = new URLSearchParams(entries).toString();
  url.search = url.search ? `${url.search.slice(1)}&${params}` : params;
}

/** Shared with the rest of the service's redaction (audit details, run events). */
export { redactUrl } from '../security/secrets/redact-url.js';
