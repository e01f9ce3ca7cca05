import { createHash } from 'node:crypto';
import { ExpiringKeys } from './expiring-keys.js';
import { IDEMPOTENCY_WINDOW_MS, MAX_REMEMBERED_REQUEST_IDS } from './limits.js';

/** Ids longer than this are remembered by their hash, so one entry costs at most ~100 bytes. */
const MAX_KEPT_ID_CHARS = 64;

/**
 * `idempotency`: X-Request-Ids of queued messages, remembered for 10 minutes so a sender's retry
 * (after a timeout, say) does not queue the same task twice. Only queued requests are remembered:
 * a retry of a refused request (503 queue full) is still delivered. Bounded; the oldest id is
 * forgotten first, which at worst lets one late duplicate through.
 */
export class RequestIdMemory {
  private readonly ids = new ExpiringKeys(MAX_REMEMBERED_REQUEST_IDS, 'evict-oldest');

  seen(id: string, nowMs: number): boolean {
    return this.ids.has(requestIdKey(id), nowMs);
  }

  remember(id: string, nowMs: number): void {
    this.ids.add(requestIdKey(id), nowMs + IDEMPOTENCY_WINDOW_MS, nowMs);
  }

  get size(): number {
    return this.ids.size;
  }
}

/** How a sender's X-Request-Id is remembered: as is up to 64 characters, else by its SHA-256. */
export function requestIdKey(id: string): string {
  return id.length <= MAX_KEPT_ID_CHARS ? id : `#${createHash('sha256').update(id).digest('base64url')}`;
}
