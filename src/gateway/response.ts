import type { Dispatcher } from 'undici';

export type IncomingHttpHeaders = Dispatcher.ResponseData['headers'];

/** Build WHATWG `Headers` from undici's header record, keeping repeated headers (Set-Cookie). */
export function toHeaders(raw: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      try {
        headers.append(name, item);
      } catch {
        // A header value `Headers` refuses (control characters) is dropped rather than failing the response.
      }
    }
  }
  return headers;
}

/**
 * A completed gateway response. The body was read in full (and checked against the size limit)
 * before the response was returned, so `text()`, `json()` and `bytes()` are synchronous.
 */
export class GatewayResponse {
  private parsedHeaders: Headers | null = null;

  constructor(
    readonly status: number,
    readonly statusText: string,
    private readonly rawHeaders: IncomingHttpHeaders,
    private readonly body: Buffer,
    /** The requested URL (redirects are never followed, so it is also the responding one). */
    readonly url: string,
  ) {}

  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  /** Response headers; built on first use because most callers never look at them. */
  get headers(): Headers {
    this.parsedHeaders ??= toHeaders(this.rawHeaders);
    return this.parsedHeaders;
  }

  text(): string {
    return this.body.toString('utf8');
  }

  json<T = unknown>(): T {
    return JSON.parse(this.text()) as T;
  }

  bytes(): Uint8Array {
    return new Uint8Array(this.body.buffer, this.body.byteOffset, this.body.byteLength);
  }
}
