import { timingSafeEqual } from 'node:crypto';

/**
 * Constant-time string equality over UTF-8 bytes. Only buffers of equal length are compared
 * byte by byte (in constant time); a length mismatch returns at once, which reveals the length
 * of the secret and nothing else.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * A matcher for one fixed secret (the API key), its bytes encoded once. Each offered value of the
 * right length is encoded into the same buffer, so a compare allocates nothing: it runs on every
 * authenticated request.
 */
export function secretMatcher(secret: string): (offered: string) => boolean {
  const expected = Buffer.from(secret, 'utf8');
  const given = Buffer.alloc(expected.length);
  return (offered) =>
    Buffer.byteLength(offered, 'utf8') === expected.length && given.write(offered, 'utf8') === expected.length && timingSafeEqual(given, expected);
}
