import { createHmac, timingSafeEqual } from 'node:crypto';

const PREFIX = 'sha256=';
const DIGEST_BYTES = 32;
const HEADER_LENGTH = PREFIX.length + DIGEST_BYTES * 2;
/**
 * The offered digest is decoded into this one buffer instead of a new one per request: the check
 * is synchronous, so two never overlap. It holds only what a client sent.
 */
const offered = Buffer.alloc(DIGEST_BYTES);

/**
 * `sha256=<hex HMAC-SHA256(secret, payload)>`, the X-Service-Signature value. With a timestamp
 * (`requireTimestamp`) the signed payload is `<timestamp>.<raw body>`, so a captured request
 * cannot be re-sent later under a fresh timestamp.
 */
export function computeSignature(secret: string, body: Uint8Array | string, timestamp?: string): string {
  return `sha256=${digest(secret, body, timestamp).toString('hex')}`;
}

/**
 * Constant-time check of an X-Service-Signature header. The hex is decoded and the 32 raw bytes
 * are compared with `timingSafeEqual`, which needs equal lengths: a header of any other shape is
 * refused before any comparison, which reveals only that the format is wrong, never how much of
 * the digest matched. Hex case does not matter, since the bytes are compared.
 */
export function signatureMatches(
  secret: string,
  body: Uint8Array,
  header: string | undefined,
  timestamp?: string,
): boolean {
  if (header === undefined || header.length !== HEADER_LENGTH || !header.startsWith(PREFIX)) return false;
  // Decoding stops at the first character that is not hex: any short count is a malformed header.
  if (offered.write(header.slice(PREFIX.length), 'hex') !== DIGEST_BYTES) return false;
  return timingSafeEqual(offered, digest(secret, body, timestamp));
}

function digest(secret: string, body: Uint8Array | string, timestamp: string | undefined): Buffer {
  const hmac = createHmac('sha256', secret);
  if (timestamp !== undefined) hmac.update(`${timestamp}.`);
  return hmac.update(body).digest();
}
