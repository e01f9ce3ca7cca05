import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/**
 * Constant-time string equality. Both sides are hashed first so the compared buffers always have
 * equal length: neither the content nor the length of the secret leaks through timing.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

/**
 * A matcher for one fixed secret (the API key): its digest is computed once, so each check hashes
 * only the offered value. Same constant-time guarantee as `constantTimeEqual`.
 */
export function secretMatcher(secret: string): (offered: string) => boolean {
  const expected = digest(secret);
  return (offered) => timingSafeEqual(digest(offered), expected);
}
