import { describe, expect, it } from 'vitest';
import { ChainStatus } from './chain-status.js';
import type { ChainVerdict } from '../storage/ports/audit.js';

/** A verification the test finishes by hand. */
function verifier() {
  const calls: ((verdict: ChainVerdict) => void)[] = [];
  return {
    calls,
    verify: () => new Promise<ChainVerdict>((resolve) => calls.push(resolve)),
  };
}

describe('ChainStatus', () => {
  it('waits briefly for a verification, then keeps answering with the last verdict while a new one runs', async () => {
    let now = 1_000_000;
    const { calls, verify } = verifier();
    const status = new ChainStatus(verify, { now: () => now, maxAgeMs: 60_000, waitMs: 20 });

    // The first verification does not finish within the wait: no verdict yet, and no second one starts.
    expect(await status.current()).toEqual({ verdict: null, checkedAt: null });
    expect(await status.current()).toEqual({ verdict: null, checkedAt: null });
    expect(calls).toHaveLength(1);
    calls[0]!({ ok: true, count: 3 });
    await new Promise((r) => setImmediate(r));
    expect(await status.current()).toEqual({ verdict: { ok: true, count: 3 }, checkedAt: 1_000_000 });
    expect(calls).toHaveLength(1);

    // Once old, it is verified again; the old verdict stands until the new one is in.
    now += 60_000;
    const pending = status.current();
    calls[1]!({ ok: false, count: 2, brokenAt: { seq: 2, id: 'evt_2', reason: 'hash does not match the content (event modified)' } });
    expect(await pending).toMatchObject({ verdict: { ok: false }, checkedAt: 1_060_000 });
  });

  it('keeps the last verdict when a verification fails to run, and tries again on the next call', async () => {
    let fail = true;
    const status = new ChainStatus(async () => {
      if (fail) throw new Error('the database is closed');
      return { ok: true, count: 1 };
    }, { waitMs: 50 });
    expect(await status.current()).toEqual({ verdict: null, checkedAt: null });
    fail = false;
    expect(await status.current()).toMatchObject({ verdict: { ok: true, count: 1 } });
  });
});
