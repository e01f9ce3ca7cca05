import { randomBytes } from 'node:crypto';

/** A random URL-safe token of `bytes` random bytes (32 by default, as the spec asks for web sessions). */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** Short random id for resources (runs, sessions, turns, jobs). Opaque to clients. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('base64url')}`;
}
