import { ExpiringKeys } from './expiring-keys.js';
import { MAX_REMEMBERED_SIGNATURES, MAX_TIMESTAMP_SKEW_SECONDS } from './limits.js';
import type { SignatureToRecord } from './types.js';

const TIMESTAMP = /^\d{1,12}$/;

export type TimestampCheck = { ok: true; timestamp: string; seconds: number } | { ok: false; error: string };

/**
 * `requireTimestamp`: the sender signs `<unix seconds>.<body>` and sends the seconds in
 * X-Service-Timestamp. A timestamp more than the tolerance (300 s by default) away from our clock
 * is refused, so a captured request is only good for that window, and within it each signature is
 * accepted once. A signature is remembered until its timestamp leaves the window; after that the
 * skew check refuses it anyway. The memory here is the embedded channel's; a channel with a
 * durable intake (`agentd serve`) hands the record (`recordOf`) to the intake instead, which keeps
 * it with the messages, where a restart or another replica finds it.
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

  /**
   * What to keep of a verified signature with timestamp `seconds`: the signature as compared (hex
   * case does not matter) and when it stops mattering. The expiry follows from the signed
   * timestamp, not from anyone's clock: a process whose clock is behind still refuses the replay
   * for as long as its own skew check would let the timestamp pass.
   */
  recordOf(signature: string, seconds: number): SignatureToRecord {
    return { signature: signature.toLowerCase(), expiresAtMs: (seconds + this.toleranceSeconds + 1) * 1000 };
  }

  /** `false` when the memory is full of live signatures (the request is then refused, fail closed). */
  remember(signature: string, seconds: number, nowMs: number): boolean {
    const record = this.recordOf(signature, seconds);
    return this.seen.add(record.signature, record.expiresAtMs, nowMs);
  }

}
