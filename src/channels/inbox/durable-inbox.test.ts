import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../log.js';
import { SqliteStorage } from '../../storage/sqlite/index.js';
import { DurableInbox } from './durable-inbox.js';
import type { InboxStore } from '../../storage/ports/inbox.js';

const LEASE_MS = 90;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let storage: SqliteStorage;
afterEach(async () => {
  await storage?.close();
});

/** The SQLite inbox store, counting its claims; `shared` makes it say it is shared by replicas. */
function countingStore(shared = false) {
  storage = new SqliteStorage(':memory:');
  const inner = storage.inbox;
  let claims = 0;
  const store: InboxStore = {
    sharedByReplicas: shared,
    accept: (message, rules) => inner.accept(message, rules),
    waiting: (channel, limit) => inner.waiting(channel, limit),
    markStarted: (runId, next) => inner.markStarted(runId, next),
    claim: (channel, claim) => {
      claims++;
      return inner.claim(channel, claim);
    },
    release: (owner) => inner.release(owner),
    pruneStartedBefore: (cutoff, options) => inner.pruneStartedBefore(cutoff, options),
    pruneSignaturesBefore: (cutoff, options) => inner.pruneSignaturesBefore(cutoff, options),
  };
  return { store, claims: () => claims };
}

const message = (sender: string, content: string) => ({ sender, content, metadata: { webhook_headers: {} }, received_at: new Date().toISOString() });

describe('DurableInbox', () => {
  it('wakes its listener when an accepted message is claimed, and the sender\'s next one once the first settles', async () => {
    const { store } = countingStore();
    const inbox = new DurableInbox({ channel: 'webhook', store, owner: 'local', runExists: async () => false, log: createMemoryLogger(), leaseMs: LEASE_MS });
    let wakes = 0;
    inbox.listen(() => wakes++);
    inbox.startClaiming();
    expect(await inbox.accept(message('a', 'one'), 'r1')).toBe('queued');
    expect(await inbox.accept(message('a', 'two'), 'r2')).toBe('queued');
    await expect.poll(() => wakes).toBe(1);
    const first = inbox.receive()!;
    expect(first.content).toBe('one');
    expect(inbox.receive()).toBeUndefined();
    inbox.settled(first);
    await expect.poll(() => wakes).toBe(2);
    expect(inbox.receive()?.content).toBe('two');
    await inbox.stopClaiming();
  });

  it('on a store of its own, queues an accepted message and its sender\'s next one without a separate claim', async () => {
    const { store, claims } = countingStore();
    // A lease of a minute: no renewal falls within the test.
    const inbox = new DurableInbox({ channel: 'webhook', store, owner: 'local', runExists: async () => false, log: createMemoryLogger(), leaseMs: 60_000 });
    let wakes = 0;
    inbox.listen(() => wakes++);
    inbox.startClaiming();
    const accepted = await Promise.all(['one', 'two', 'three'].map((content, i) => inbox.accept(message('a', content), `r${i}`)));
    expect(accepted).toEqual(['queued', 'queued', 'queued']);
    expect(await inbox.accept(message('b', 'other'), 'r9')).toBe('queued');
    let first = inbox.receive()!;
    expect([first.content, inbox.receive()?.content, inbox.receive()]).toEqual(['one', 'other', undefined]);
    for (const next of ['two', 'three']) {
      const woken = wakes;
      inbox.settled(first);
      await expect.poll(() => wakes).toBe(woken + 1);
      first = inbox.receive()!;
      expect(first.content).toBe(next);
    }
    expect(claims()).toBe(0);
    await inbox.stopClaiming();
  });

  it('does no work while idle on a store of its own, and renews and takes over on a store shared by replicas', async () => {
    const own = countingStore();
    const inbox = new DurableInbox({ channel: 'webhook', store: own.store, owner: 'local', runExists: async () => false, log: createMemoryLogger(), leaseMs: LEASE_MS });
    inbox.listen(() => {});
    inbox.startClaiming();
    expect(await inbox.accept(message('a', 'one'), 'r1')).toBe('queued');
    await expect.poll(() => own.claims()).toBeGreaterThan(0);
    // Holding a claim: it is renewed.
    const held = own.claims();
    await expect.poll(() => own.claims(), { timeout: 2_000 }).toBeGreaterThan(held);
    inbox.settled(inbox.receive()!);
    await sleep(LEASE_MS);
    const idle = own.claims();
    await sleep(LEASE_MS * 3);
    expect(own.claims()).toBe(idle);
    await inbox.stopClaiming();
    await storage.close();

    const shared = countingStore(true);
    const replica = new DurableInbox({ channel: 'webhook', store: shared.store, owner: 'rep_a', runExists: async () => false, log: createMemoryLogger(), leaseMs: LEASE_MS });
    replica.startClaiming();
    await sleep(LEASE_MS * 3);
    expect(shared.claims()).toBeGreaterThanOrEqual(2);
    await replica.stopClaiming();
  });

  it('keeps the retry time of a message only while the message is still its to claim', async () => {
    const { store } = countingStore();
    const inbox = new DurableInbox({ channel: 'webhook', store, owner: 'local', runExists: async () => false, log: createMemoryLogger(), leaseMs: LEASE_MS });
    inbox.listen(() => {});
    inbox.startClaiming();
    expect(await inbox.accept(message('a', 'one'), 'r1')).toBe('queued');
    // recover() claims, and settles once that claim is done.
    await inbox.recover();
    const first = inbox.receive()!;
    inbox.retry(first, 60_000);
    await inbox.recover();
    expect(inbox.retrying).toBe(1);
    // Its run was created after all: it is no longer waiting, so no claim returns it again.
    await store.markStarted(first.runId);
    await inbox.recover();
    expect(inbox.retrying).toBe(0);
    await inbox.stopClaiming();
  });
});
