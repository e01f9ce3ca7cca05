/**
 * Decides whether a repeated event (failed logins, 429s, webhook rejections) is worth writing.
 * Each key may write `perWindow` events per window; the rest are counted and the count is reported
 * on the next written event, so a flood adds a few rows per client per minute instead of one per
 * request. The map is bounded; the oldest key is dropped first.
 */
export class AuditSampler {
  private readonly entries = new Map<string, { windowStart: number; written: number; suppressed: number }>();

  constructor(
    private readonly perWindow = 3,
    private readonly windowMs = 60_000,
    private readonly maxKeys = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** `null` = skip this one; otherwise write it, with `suppressed` events skipped since the last write. */
  take(key: string): { suppressed: number } | null {
    const now = this.now();
    let entry = this.entries.get(key);
    if (!entry || now - entry.windowStart >= this.windowMs) {
      const suppressed = entry?.suppressed ?? 0;
      this.entries.delete(key);
      if (this.entries.size >= this.maxKeys) {
        const oldest = this.entries.keys().next().value;
        if (oldest !== undefined) this.entries.delete(oldest);
      }
      entry = { windowStart: now, written: 0, suppressed };
      this.entries.set(key, entry);
    }
    if (entry.written >= this.perWindow) {
      entry.suppressed++;
      return null;
    }
    entry.written++;
    const suppressed = entry.suppressed;
    entry.suppressed = 0;
    return { suppressed };
  }
}
