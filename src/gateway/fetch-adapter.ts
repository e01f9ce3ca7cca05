import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { Logger } from '../log.js';
import { methodOf } from './options.js';
import { toHeaders, type IncomingHttpHeaders } from './response.js';

/**
 * The translation between WHATWG `fetch` and the gateway, so SDKs (`openai`, `@anthropic-ai/sdk`)
 * can be handed `client.fetch` and have every call go through policy. Only what a request means is
 * taken from `RequestInit` (method, headers, body, signal); transport overrides such as an undici
 * `dispatcher` are dropped and logged. `redirect` is irrelevant: a 3xx always comes back as-is.
 */

/** RequestInit members that only matter in browsers; ignored without a log line. */
const BROWSER_ONLY = new Set(['redirect', 'duplex', 'keepalive', 'cache', 'credentials', 'mode', 'referrer', 'referrerPolicy', 'integrity', 'priority', 'window']);
const MEANINGFUL = new Set(['method', 'headers', 'body', 'signal']);

export type FetchBody = string | Uint8Array | Readable | null;

export interface PreparedFetch {
  url: string;
  method: string;
  headers: Headers;
  body: FetchBody;
  signal: AbortSignal | undefined;
}

export async function prepareFetch(input: string | URL | Request, init: RequestInit | undefined, log: Logger): Promise<PreparedFetch> {
  const request = input instanceof Request ? input : null;
  if (init) {
    const dropped = Object.keys(init).filter((key) => !MEANINGFUL.has(key) && !BROWSER_ONLY.has(key));
    if (dropped.length > 0) log.warn(`gateway: dropped fetch option(s) not on the allowlist: ${dropped.map((k) => k.replace(/[^\w.-]/g, '?').slice(0, 64)).join(', ')}`);
  }
  const method = methodOf(init?.method ?? request?.method ?? 'GET');
  const headers = new Headers(init?.headers ?? request?.headers);
  let body: FetchBody = null;
  if (init?.body !== undefined && init.body !== null) body = await encodeFetchBody(init.body, headers);
  else if (request?.body && init?.body === undefined) body = Buffer.from(await request.arrayBuffer());
  return {
    url: typeof input === 'string' ? input : input instanceof URL ? input.href : input.url,
    method,
    headers,
    body,
    signal: init?.signal ?? request?.signal ?? undefined,
  };
}

function setDefaultType(headers: Headers, type: string): void {
  if (type && !headers.has('content-type')) headers.set('content-type', type);
}

/** The body kinds `fetch` accepts, with the content types `fetch` would set for them. */
async function encodeFetchBody(body: NonNullable<RequestInit['body']> | AsyncIterable<Uint8Array>, headers: Headers): Promise<FetchBody> {
  if (typeof body === 'string') {
    setDefaultType(headers, 'text/plain;charset=UTF-8');
    return body;
  }
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  if (body instanceof URLSearchParams) {
    setDefaultType(headers, 'application/x-www-form-urlencoded;charset=UTF-8');
    return body.toString();
  }
  if (body instanceof Blob) {
    setDefaultType(headers, body.type);
    return new Uint8Array(await body.arrayBuffer());
  }
  if (body instanceof FormData) {
    // Let the platform write the multipart encoding (and its boundary) exactly as fetch would.
    const encoded = new Response(body);
    setDefaultType(headers, encoded.headers.get('content-type') ?? '');
    return new Uint8Array(await encoded.arrayBuffer());
  }
  if (body instanceof ReadableStream) return Readable.fromWeb(body as NodeReadableStream<Uint8Array>);
  if (typeof body === 'object' && Symbol.asyncIterator in body) return Readable.from(body as AsyncIterable<Uint8Array>);
  throw new TypeError('unsupported fetch body type');
}

/** Headers as undici takes them: a plain record, repeated names joined by fetch's own rules. */
export function headerRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  headers.forEach((value, name) => {
    record[name] = value;
  });
  return record;
}

/** Statuses whose response has no body by definition (a `Response` refuses one for them). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

export function toWebResponse(
  status: number,
  statusText: string,
  rawHeaders: IncomingHttpHeaders,
  body: ReadableStream<Uint8Array> | null,
  url: string,
): Response {
  const response = new Response(NULL_BODY.has(status) ? null : body, { status, statusText, headers: toHeaders(rawHeaders) });
  // `Response.url` cannot be set through the constructor; SDKs read it for error messages.
  Object.defineProperty(response, 'url', { value: url });
  return response;
}
