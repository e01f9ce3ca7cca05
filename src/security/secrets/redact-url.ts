import { REDACTED } from './secrets.js';

/**
 * The URL as audit events show it: no credentials, no fragment, every query value replaced
 * (`?key=[REDACTED]`) because query strings routinely carry API keys and tokens.
 */
export function redactUrl(input: URL | string): string {
  let url: URL;
  try {
    url = typeof input === 'string' ? new URL(input) : input;
  } catch {
    // Unparseable: keep only a short prefix before any query, enough to recognise the mistake,
    // without whatever userinfo the authority part carried.
    const text = String(input);
    const cut = text.search(/[?#]/);
    const head = cut >= 0 ? text.slice(0, cut) : text;
    return head.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/]*@/i, '$1').slice(0, 200);
  }
  const base = `${url.protocol}//${url.host}${url.pathname}`;
  if (url.search === '' || url.search === '?') return base.slice(0, 2048);
  const query = url.search
    .slice(1)
    .split('&')
    .map((pair) => {
      // A bare part (`?sk_live_…`) is as likely to be a secret as a value.
      const eq = pair.indexOf('=');
      return eq < 0 ? (pair === '' ? pair : REDACTED) : `${pair.slice(0, eq)}=${REDACTED}`;
    })
    .join('&');
  return `${base}?${query}`.slice(0, 2048);
}

/** An absolute http(s) URL, as a whole string (a URL inside prose is left to the secret detector). */
const ABSOLUTE_URL = /^https?:\/\/\S+$/i;

export function isAbsoluteUrl(text: string): boolean {
  return ABSOLUTE_URL.test(text);
}

/** An http(s) URL within text: up to whitespace or a character that usually closes a quotation. */
const URL_IN_TEXT = /\bhttps?:\/\/[^\s<>"'`]+/gi;

/**
 * `text` with every http(s) URL in it shown as `redactUrl` shows it: for text that echoes a URL a
 * tool was called with (its redacted arguments must not be undone by its output).
 */
export function redactUrlsIn(text: string): string {
  return text.replace(URL_IN_TEXT, (url) => redactUrl(url));
}
