import type { Logger } from '../log.js';
import type { Query } from './url.js';

/**
 * Step 4 of the request flow: only an allowlist of request options reaches the transport. Anything
 * else — `verify`, `rejectUnauthorized`, `dispatcher`, `agent`, `follow`, a proxy — is dropped
 * and logged by name (never by value), so no caller can turn off TLS verification, follow
 * redirects, or route around the pinned connection.
 */

export type HeadersInput =
  | Readonly<Record<string, string | readonly string[] | number | undefined>>
  | Headers
  | Iterable<readonly [string, string]>;

export type RequestBody = string | Uint8Array | ArrayBuffer | URLSearchParams | null;

export interface RequestOptions {
  headers?: HeadersInput;
  /** Appended to the URL's query string. */
  query?: Query;
  body?: RequestBody;
  /** Serialised as JSON; sets `content-type: application/json` unless a content type is given. */
  json?: unknown;
  /** Milliseconds for this whole request (DNS, connection, headers and body); overrides the client's. */
  timeout?: number;
  signal?: AbortSignal;
}

export const ALLOWED_OPTIONS: readonly (keyof RequestOptions)[] = ['headers', 'query', 'body', 'json', 'timeout', 'signal'];
const ALLOWED = new Set<string>(ALLOWED_OPTIONS);

/** Copy the allowed options; report the names of the others through `log`. */
export function allowedOptions(options: object | undefined, log: Logger): RequestOptions {
  if (options === undefined || options === null) return {};
  const kept: Record<string, unknown> = {};
  const dropped: string[] = [];
  for (const [key, value] of Object.entries(options)) {
    if (ALLOWED.has(key)) kept[key] = value;
    else dropped.push(key);
  }
  if (dropped.length > 0) log.warn(`gateway: dropped request option(s) not on the allowlist: ${dropped.map(safeName).join(', ')}`);
  return kept as RequestOptions;
}

/** Option and header names are echoed to the log; keep them short and printable. */
function safeName(name: string): string {
  return name.replace(/[^\w.-]/g, '?').slice(0, 64);
}

/**
 * Headers the gateway owns. `host`: the Host header is always the URL's host (a caller-chosen one
 * could reach another virtual host behind an allowed address). Hop-by-hop and framing headers are
 * the transport's business. `accept-encoding`: responses come uncompressed, so the size limit
 * counts the bytes that end up in memory and a compressed bomb cannot inflate past it.
 */
const GATEWAY_OWNED = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'content-length',
  'accept-encoding',
]);

export type OutgoingHeaders = Record<string, string | string[]>;

function entriesOf(input: HeadersInput): Iterable<readonly [string, unknown]> {
  if (input instanceof Headers) return input.entries();
  if (Symbol.iterator in input) return input as Iterable<readonly [string, string]>;
  return Object.entries(input);
}

/** Lower-cased outgoing headers without the gateway-owned ones; `dropped` lists what was removed. */
export function outgoingHeaders(input: HeadersInput | undefined): { headers: OutgoingHeaders; dropped: string[] } {
  const headers: OutgoingHeaders = { 'accept-encoding': 'identity' };
  const dropped: string[] = [];
  if (!input) return { headers, dropped };
  for (const [rawName, value] of entriesOf(input)) {
    if (value === undefined || value === null) continue;
    const name = rawName.toLowerCase();
    if (GATEWAY_OWNED.has(name)) {
      if (name !== 'accept-encoding') dropped.push(safeName(name));
      continue;
    }
    const values = Array.isArray(value) ? value.map(String) : [String(value)];
    const existing = headers[name];
    if (existing === undefined) headers[name] = values.length === 1 ? values[0]! : values;
    else headers[name] = [...(Array.isArray(existing) ? existing : [existing]), ...values];
  }
  return { headers, dropped };
}

function hasHeader(headers: OutgoingHeaders, name: string): boolean {
  return headers[name] !== undefined;
}

/** The request body as bytes or text, setting a content type for `json` and form bodies. */
export function encodeBody(options: RequestOptions, headers: OutgoingHeaders): string | Uint8Array | null {
  if (options.json !== undefined && options.body !== undefined && options.body !== null) {
    throw new TypeError('pass either body or json, not both');
  }
  if (options.json !== undefined) {
    if (!hasHeader(headers, 'content-type')) headers['content-type'] = 'application/json';
    return JSON.stringify(options.json);
  }
  const body = options.body;
  if (body === undefined || body === null) return null;
  if (typeof body === 'string') return body;
  if (body instanceof URLSearchParams) {
    if (!hasHeader(headers, 'content-type')) headers['content-type'] = 'application/x-www-form-urlencoded;charset=UTF-8';
    return body.toString();
  }
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (body instanceof Uint8Array) return body;
  throw new TypeError('body must be a string, Uint8Array, ArrayBuffer or URLSearchParams');
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** CONNECT would open a tunnel the policy never sees; TRACE/TRACK echo credentials back. */
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);

/** The request method, upper-cased; throws `TypeError` for what is not an HTTP method or is refused. */
export function methodOf(method: string): string {
  const upper = String(method).toUpperCase();
  if (!TOKEN.test(upper) || FORBIDDEN_METHODS.has(upper)) throw new TypeError(`method ${JSON.stringify(upper.slice(0, 32))} is not allowed`);
  return upper;
}

/** A per-request timeout must be a positive number of milliseconds. */
export function timeoutOf(value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new TypeError('timeout must be a positive number of milliseconds');
  }
  return value;
}
