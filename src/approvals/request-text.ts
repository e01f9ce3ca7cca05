import { canonicalJson } from '../security/ids/canonical-json.js';
import type { KnownSecrets } from '../security/secrets/known-secrets.js';
import { redact } from '../security/secrets/redact.js';
import { redactUrl } from '../security/secrets/redact-url.js';
import { censor } from '../security/secrets/secrets.js';
import { requestDigest } from './hash-key.js';

/** The request an approval is about: what the operator reads, what the audit log keeps, and the digest the decision is bound to. */
export interface ExactRequest {
  /**
   * Shown to the operator (stored with the approval, the approvals API, the run's stream): the
   * request exactly as made, with long values folded and the service's own secrets masked.
   */
  text: string;
  /** Written to the audit log: the redacted form (sensitive keys, detected secrets and query values hidden). */
  audited: string;
  /** HMAC-SHA256 (hex) of the exact request under the installation's key: another request never matches it. */
  hash: string;
}

/** What writing a request needs: the installation's hash key and the secrets to mask. */
export interface RequestKeys {
  hashKey: Buffer;
  secrets: Pick<KnownSecrets, 'mask'>;
}

/** A single value (string, object key, URL) longer than this is folded: head and tail kept, its length stated. */
export const FOLD_OVER = 2_000;
const FOLD_HEAD = 1_000;
const FOLD_TAIL = 500;
/** The whole text at most (64 KiB); past it the rest is cut with a marker that says how much. */
export const MAX_REQUEST_TEXT = 65_536;

/** A gateway request: method and URL (no fragment; a password in it shown as `***`). */
export function networkRequest(method: string, url: URL, keys: RequestKeys): ExactRequest {
  const exact = new URL(url.href);
  exact.hash = '';
  const verb = method.toUpperCase();
  const withoutCredentials = new URL(exact.href);
  withoutCredentials.username = '';
  withoutCredentials.password = '';
  const mask = (text: string) => keys.secrets.mask(text);
  return {
    text: bound(`${fold(verb)} ${fold(mask(shownUrl(exact)))}`),
    audited: mask(`${verb} ${redactUrl(withoutCredentials)}`),
    hash: requestDigest(keys.hashKey, `${verb} ${exact.href}`),
  };
}

/**
 * A tool call: the tool's name and its exact arguments as canonical JSON (keys sorted at every
 * level). The audit log keeps what the run's `tool.request` event keeps: sensitive keys such as
 * `password` and detected secrets hidden.
 */
export function toolRequest(tool: string, args: Record<string, unknown>, keys: RequestKeys): ExactRequest {
  const mask = (text: string) => keys.secrets.mask(text);
  return {
    text: bound(`${tool} ${shownJson(args, (text) => fold(mask(text)))}`),
    // Redacted first: a masked URL (the mask has a space in it) would no longer be seen as a URL.
    audited: censor(`${tool} ${canonicalJson(mapStrings(redact(args), mask))}`),
    hash: requestDigest(keys.hashKey, `${tool} ${canonicalJson(args)}`),
  };
}

/** `value` shortened to its head and tail with `…[folded: N of M characters]…` between; short values unchanged. */
export function fold(value: string): string {
  if (value.length <= FOLD_OVER) return value;
  const head = value.slice(0, pairSafe(value, FOLD_HEAD));
  const tail = value.slice(pairSafe(value, value.length - FOLD_TAIL));
  return `${head}…[folded: ${value.length - head.length - tail.length} of ${value.length} characters]…${tail}`;
}

/** The text cut at {@link MAX_REQUEST_TEXT} with a marker that says how much is not shown. */
export function bound(text: string): string {
  if (text.length <= MAX_REQUEST_TEXT) return text;
  const kept = text.slice(0, pairSafe(text, MAX_REQUEST_TEXT - 100));
  return `${kept}…[cut: ${text.length - kept.length} more of ${text.length} characters not shown]`;
}

/** The URL as sent, except that a password in it is shown as `***` (the user name is shown). */
function shownUrl(url: URL): string {
  if (url.username === '' && url.password === '') return url.href;
  const userinfo = `${url.username}${url.password === '' ? '' : ':***'}@`;
  return `${url.protocol}//${userinfo}${url.host}${url.pathname}${url.search}`;
}

/**
 * Canonical JSON (as {@link canonicalJson}: keys sorted by their exact text) with every string and
 * key passed through `show` first. Written directly rather than through a shown copy of the object:
 * two long keys that fold alike must both appear.
 */
function shownJson(value: unknown, show: (text: string) => string): string {
  if (typeof value === 'string') return JSON.stringify(show(value));
  if (Array.isArray(value)) return `[${value.map((item) => shownJson(item, show)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value).sort().map((key) => `${JSON.stringify(show(key))}:${shownJson((value as Record<string, unknown>)[key], show)}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** A copy of a JSON value with `map` applied to every string and key. */
function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === 'string') return map(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    // defineProperty: a `__proto__` key stays an own key of the copy rather than its prototype.
    Object.defineProperty(out, map(key), { value: mapStrings(item, map), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** `index`, moved back by one when it would split a surrogate pair. */
function pairSafe(text: string, index: number): number {
  const code = text.charCodeAt(index - 1);
  return code >= 0xd800 && code <= 0xdbff ? index - 1 : index;
}
