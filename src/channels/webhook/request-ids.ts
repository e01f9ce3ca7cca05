import { createHash } from 'node:crypto';
import { ExpiringKeys } from './expiring-keys.js';
import { IDEMPOTENCY_WINDOW_MS, MAX_REMEMBERED_REQUEST_IDS } from './limits.js';

/** Ids longer than this are remembered by their hash, so one entry costs at most ~100 bytes. */
const MAX_KEPT_ID_CHARS = 64;

/** What a repeated X-Request-Id is: new, a retry of the same prompt, or another prompt under a used id. */
export type RequestIdCheck = 'new' | 'duplicate' | 'conflict';

/**
 * `idempotency`: X-Request-Ids of queued messages, remembered per sender for 10 minutes so a
 * sender's retry (after a timeout, say) does not queue the same task twice. An id is the sender's
 * own: another sender using the same one is not a repeat (it would otherwise silently drop that
 * sender's message). A repeat whose prompt differs is a conflict, not a retry. Only queued requests
 * are remembered: a retry of a refused request (503 queue full) is still delivered. Bounded; the
 * oldest id is forgotten first, which at worst lets one late duplicate through.
 */
export class RequestIdMemory {
  private readonly ids = new ExpiringKeys<string>(MAX_REMEMBERED_REQUEST_IDS, 'evict-oldest');

  check(sender: string, id: string, prompt: string, nowMs: number): RequestIdCheck {
    const digest = this.ids.get(senderRequestKey(sender, id), nowMs);
    if (digest === undefined) return 'new';
    return digest === contentDigest(prompt) ? 'duplicate' : 'conflict';
  }

  remember(sender: string, id: string, prompt: string, nowMs: number): void {
    this.ids.add(senderRequestKey(sender, id), nowMs + IDEMPOTENCY_WINDOW_MS, nowMs, contentDigest(prompt));
  }

  get size(): number {
    return this.ids.size;
  }
}

/**
 * One key for a (sender, id) pair, unambiguous whatever either contains: JSON quotes and escapes
 * both, so no sender/id split can produce another pair's key. Compared exactly (case and all).
 */
function senderRequestKey(sender: string, id: string): string {
  return JSON.stringify([sender, requestIdKey(id)]);
}

/** How a sender's X-Request-Id is remembered: as is up to 64 characters, else by its SHA-256. */
export function requestIdKey(id: string): string {
  return id.length <= MAX_KEPT_ID_CHARS ? id : `#${createHash('sha256').update(id).digest('base64url')}`;
}

/** SHA-256 (hex) of a prompt: what tells a retry from another message under the same request id. */
export function contentDigest(content: string): string {
  return createHash('sha256').update(content).digest('hex');
}
