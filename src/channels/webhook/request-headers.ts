import type { IncomingHttpHeaders } from 'node:http';

/** The request headers a message keeps in `metadata.webhook_headers`, spelt as docs/webhook.md#body lists them. */
export const KEPT_HEADERS = ['Content-Type', 'User-Agent', 'X-Request-Id', 'X-Service-Signature'] as const;
export type KeptHeader = (typeof KEPT_HEADERS)[number];
export type WebhookHeaders = Partial<Record<KeptHeader, string>>;

/**
 * Exactly `application/json` (docs/decisions.md#webhook-content-type-is-exact): no parameters (`; charset=utf-8` is refused), no
 * other case (`Application/JSON` is refused), no structured-syntax suffix. JSON on the wire is
 * UTF-8 (RFC 8259), and anything that does not decode as UTF-8 is a 400.
 */
export function isJsonContentType(value: string | undefined): boolean {
  return value === 'application/json';
}

export type ContentLength =
  | { kind: 'length'; bytes: number }
  | { kind: 'missing' }
  | { kind: 'invalid' }
  | { kind: 'too-large' };

const DIGITS = /^\d+$/;
/** More digits than this cannot be an acceptable length; it also keeps `Number()` exact. */
const MAX_DIGITS = 15;

/**
 * The declared body length. Node's parser already refuses most malformed values before we see
 * them; this check is the channel's own rule (`^\d+$`) so it does not depend on that. A chunked
 * body has no declared length and is refused like a missing one: the size check must happen
 * before any byte of the body is read.
 */
export function parseContentLength(headers: IncomingHttpHeaders, maxBytes: number): ContentLength {
  const raw = headers['content-length'];
  if (raw === undefined) return { kind: 'missing' };
  if (!DIGITS.test(raw)) return { kind: 'invalid' };
  if (raw.length > MAX_DIGITS) return { kind: 'too-large' };
  const bytes = Number(raw);
  return bytes > maxBytes ? { kind: 'too-large' } : { kind: 'length', bytes };
}

/** Whether the request announces a body at all (then a refusal must not leave it half read). */
export function hasRequestBody(headers: IncomingHttpHeaders): boolean {
  if (headers['transfer-encoding'] !== undefined) return true;
  const raw = headers['content-length'];
  return raw !== undefined && raw !== '0' && !/^0+$/.test(raw);
}

const LOOKUP = KEPT_HEADERS.map((name) => [name, name.toLowerCase()] as const);

export function pickWebhookHeaders(headers: IncomingHttpHeaders): WebhookHeaders {
  const kept: WebhookHeaders = {};
  for (const [name, key] of LOOKUP) {
    const value = headers[key];
    if (typeof value === 'string') kept[name] = value;
    else if (Array.isArray(value)) kept[name] = value.join(', ');
  }
  return kept;
}
