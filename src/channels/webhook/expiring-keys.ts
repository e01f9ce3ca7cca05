/**
 * A bounded set of keys that each expire at their own time, each with a value (the prompt's digest
 * of a remembered X-Request-Id; nothing for a replay signature). A Map keeps insertion order, which is close to expiry order, so pruning from the
 * front is amortised O(1). When it is full of live keys, `whenFull` decides: `evict-oldest`
 * forgets the oldest (fine for idempotency, where forgetting costs a duplicate at worst), `refuse`
 * keeps them and refuses the new key (replay protection, where forgetting would reopen a replay).
 */
export class ExpiringKeys<V = true> {
  private readonly entries = new Map<string, { expiresAt: number; value: V }>();

  constructor(
    private readonly maxKeys: number,
    private readonly whenFull: 'evict-oldest' | 'refuse',
  ) {}

  get size(): number {
    return this.entries.size;
  }

  has(key: string, now: number): boolean {
    return this.get(key, now) !== undefined;
  }

  /** The value of `key` while it lives, else undefined. */
  get(key: string, now: number): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt > now) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  /** Remember `key` (with `value`) until `expiresAt`; `false` when full and configured to refuse. */
  add(key: string, expiresAt: number, now: number, value: V = true as V): boolean {
    this.pruneFront(now);
    if (this.entries.has(key)) {
      this.entries.delete(key);
    } else if (this.entries.size >= this.maxKeys) {
      if (this.whenFull === 'refuse') {
        // Keys with longer lifetimes can shadow expired ones behind them; sweep all before refusing.
        this.pruneAll(now);
        if (this.entries.size >= this.maxKeys) return false;
      } else {
        const oldest = this.entries.keys().next().value;
        if (oldest !== undefined) this.entries.delete(oldest);
      }
    }
    this.entries.set(key, { expiresAt, value });
    return true;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  private pruneFront(now: number): void {
    for (const [key, { expiresAt }] of this.entries) {
      if (expiresAt > now) return;
      this.entries.delete(key);
    }
  }

  private pruneAll(now: number): void {
    for (const [key, { expiresAt }] of this.entries) {
      if (expiresAt <= now) this.entries.delete(key);
    }
  }
}
