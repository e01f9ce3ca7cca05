/**
 * A cap on the body bytes held by all requests at once. Each read reserves its declared length
 * before the first byte is read and releases it when the read ends. Without it memory would be
 * 1 MiB times however many clients upload at the same time; the per-IP rate limit bounds each
 * address, not the number of addresses.
 */
export class ByteBudget {
  private used = 0;

  constructor(readonly limit: number) {}

  get inUse(): number {
    return this.used;
  }

  tryReserve(bytes: number): boolean {
    if (this.used + bytes > this.limit) return false;
    this.used += bytes;
    return true;
  }

  release(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }
}
