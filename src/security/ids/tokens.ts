import { randomBytes, randomFillSync } from 'node:crypto';

/** A random URL-safe token of `bytes` random bytes (32 by default, as web sessions use: docs/api.md#browser-sessions-and-csrf). */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/**
 * Random bytes for ids, drawn from a pool refilled 4 KiB at a time. Each `randomBytes` call is a
 * trip into the kernel's generator (several microseconds); ids are minted on hot paths (every audit
 * event, run and turn), so one trip serves ~340 of them. The bytes are the same CSPRNG output.
 */
const POOL = Buffer.allocUnsafe(4096);
let poolOffset = POOL.length;

export function randomIdBytes(count: number): Buffer {
  if (count > POOL.length) return randomBytes(count);
  if (poolOffset + count > POOL.length) {
    randomFillSync(POOL);
    poolOffset = 0;
  }
  // A copy: the pool is overwritten on refill, an id must not change afterwards.
  const bytes = Buffer.from(POOL.subarray(poolOffset, poolOffset + count));
  poolOffset += count;
  return bytes;
}

/** Short random id for resources (sessions, jobs, events). Opaque to clients. */
export function newId(prefix: string): string {
  return `${prefix}_${randomIdBytes(12).toString('base64url')}`;
}

/**
 * An id that starts with its creation time (milliseconds, base 36, fixed width) followed by the
 * same 12 random bytes as `newId`: for rows inserted by the thousand (runs, turns), new ids land at
 * the end of the indexes keyed by them instead of at random places, which costs SQLite a fraction
 * of the pages per insert; the random part keeps them unguessable. Still opaque to clients.
 */
export function newTimeOrderedId(prefix: string, now = Date.now()): string {
  return `${prefix}_${now.toString(36).padStart(9, '0')}${randomIdBytes(12).toString('base64url')}`;
}
