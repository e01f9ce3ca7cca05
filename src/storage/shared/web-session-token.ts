import { createHash } from 'node:crypto';

/** 32 random bytes in base64url, as `randomToken()` makes them. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** Whether `token` can be a session token at all (anything else is not looked up). */
export function isSessionToken(token: string): boolean {
  return TOKEN_SHAPE.test(token);
}

/**
 * Web sessions are kept under the SHA-256 of their token: a lookup hashes what the client offered
 * and finds the entry by digest, so the raw secret is never compared byte by byte (no timing
 * signal) and a dump of the store (memory or database) holds no usable cookie.
 */
export function sessionTokenDigest(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}
