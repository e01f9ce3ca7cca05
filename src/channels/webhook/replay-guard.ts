import { ExpiringKeys } from './expiring-keys.js';
import { MAX_REMEMBERED_SIGNATURES, MAX_TIMESTAMP_SKEW_SECONDS } from './limits.js';

const TIMESTAMP = /^\d{1,12}$/;

export type TimestampCheck = { ok: true; timestamp: string; seconds: number } | { ok: false; error: string };

/**
 * `requireTimestamp`: the sender signs `<unix seconds>.<body>` and sends the seconds in
 * X-Service-Timestamp. A timestamp more than the tolerance (300 s by default) away from our clock
 * is refused, so a captured request is only good for that window, and within it each signature is
 * accepted once. A signature is remembered until its timestamp leaves the window; after that the
 * skew check refuses it anyway.
 */
export class ReplayGuard {
  private readonly seen = new ExpiringKeys(MAX_REMEMBERED_SIGNATURES, 'refuse');

  constructor(private readonly toleranceSeconds = MAX_TIMESTAMP_SKEW_SECONDS) {}

  checkTimestamp(header: string | undefined, nowMs: number): TimestampCheck {
    if (header === undefined) return { ok: false, error: 'Missing X-Service-Timestamp' };
    if (!TIMESTAMP.test(header)) return { ok: false, error: 'X-Service-Timestamp must be Unix seconds' };
    const seconds = Number(header);
    if (Math.abs(nowMs / 1000 - seconds) > this.toleranceSeconds) {
      return { ok: false, error: `X-Service-Timestamp is more than ${this.toleranceSeconds} s from the server clock` };
    }
    return { ok: true, timestamp: header, seconds };
  }

  isReplay(signature: string, nowMs: number): boolean {
    return this.seen.has(signature.toLowerCase(), nowMs);
  }

  /** `false` when the memory is full of live signatures (the request is then refused, fail closed). */
  remember(signature: string, seconds: number, nowMs: number): boolean {
    const expiresAt = (seconds + this.toleranceSeconds + 1) * 1000;
    return this.seen.add(signature.toLowerCase(), expiresAt, nowMs);
  }

  /** The request it was remembered for was not accepted after all (its store failed): a retry may pass. */
  forget(signature: string): void {
    this.seen.delete(signature.toLowerCase());
  }
}
