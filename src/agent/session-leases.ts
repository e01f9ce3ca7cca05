import type { Logger } from '../log.js';
import { sessionBusy } from './errors.js';
import type { ClaimLease, SessionClaim, SessionClaimStore } from './stores.js';

/**
 * How long a session claim lasts unless its replica renews it. With the heartbeat below, a killed
 * replica's runs are ended elsewhere 20 to 25 s after its last renewal (within the 30 s the service
 * promises), while a replica whose renewals stall for up to 15 s (three beats) keeps its work.
 */
export const LEASE_MS = 20_000;
/** How often a replica renews its claims and ends the runs of replicas whose claims expired. */
export const HEARTBEAT_MS = 5_000;
/** What a run left by a replica that stopped is ended with. */
export const REPLICA_STOPPED = 'interrupted: the replica running it stopped';
/** Expired claims reaped per heartbeat at most (the next heartbeat takes the rest). */
const REAP_BATCH = 100;

const iso = (ms: number): string => new Date(ms).toISOString();

export interface SessionLeasesOptions {
  store: SessionClaimStore;
  log: Logger;
  now?: () => number;
  /** Tests shorten both; the lease must outlast a few heartbeats. */
  leaseMs?: number;
  heartbeatMs?: number;
}

/**
 * The shared side of "one run or chat in flight per session": the local `SessionSlots` keep it
 * within this process, the claims in the store across replicas. While work runs its claim is
 * renewed every heartbeat; the same heartbeat frees the sessions of replicas whose claims expired
 * and ends the runs they held, so a replica killed mid-run leaves nothing unfinished for longer
 * than a lease and a heartbeat.
 */
export class SessionLeases {
  /** The claims this process holds: holder id → session id (one per run or chat in flight). */
  private readonly held = new Map<string, string>();
  private readonly now: () => number;
  private readonly leaseMs: number;
  private readonly heartbeatMs: number;
  private timer: NodeJS.Timeout | null = null;
  private beating: Promise<void> = Promise.resolve();

  constructor(private readonly options: SessionLeasesOptions) {
    this.now = options.now ?? Date.now;
    this.leaseMs = options.leaseMs ?? LEASE_MS;
    this.heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  }

  /** Claims the session for `holderId`, or throws `session_busy` when another replica's work holds it. */
  acquire(sessionId: string, kind: SessionClaim['kind'], holderId: string): Promise<void> {
    return this.acquireWith(sessionId, holderId, (lease) =>
      this.options.store.acquire({ session_id: sessionId, holder_id: holderId, kind, expires_at: lease.expires_at }, lease.now));
  }

  /**
   * Claims the session for `holderId` through `take`, a statement that takes the claim with other
   * work (`RunStore.createClaimed`: with the run's creation), true when taken; `session_busy` when not.
   */
  async acquireWith(sessionId: string, holderId: string, take: (lease: ClaimLease) => Promise<boolean>): Promise<void> {
    const now = this.now();
    if (!(await take({ expires_at: iso(now + this.leaseMs), now: iso(now) }))) throw sessionBusy(sessionId);
    this.held.set(holderId, sessionId);
  }

  /** Frees the claim. Never throws: a claim that could not be deleted stops being renewed and expires. */
  async release(sessionId: string, holderId: string): Promise<void> {
    if (!this.held.delete(holderId)) return;
    await this.options.store.release(sessionId, holderId).catch((err: unknown) => {
      this.options.log.warn(`could not free session ${sessionId} in the store (it frees itself within ${this.leaseMs / 1000} s): ${(err as Error)?.message ?? String(err)}`);
    });
  }

  /**
   * Stops renewing the claim without deleting it: the run's last statement frees it
   * (`RunStore.claimsWithRuns`). Should that statement fail, the claim expires by itself.
   */
  forget(holderId: string): void {
    this.held.delete(holderId);
  }

  /** The run or chat holding the session now, on whichever replica. */
  holder(sessionId: string): Promise<SessionClaim | null> {
    return this.options.store.holder(sessionId, iso(this.now()));
  }

  /** Drops the claims a previous process of this replica left, then starts the heartbeat. */
  async start(): Promise<void> {
    await this.options.store.releaseOwn();
    this.schedule();
  }

  /** Stops the heartbeat (this replica's claims then expire unless released); waits for a beat in progress. */
  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.beating;
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.beating = this.beat().finally(() => {
        if (this.timer) this.schedule();
      });
    }, this.heartbeatMs);
    this.timer.unref();
  }

  private async beat(): Promise<void> {
    const { store, log } = this.options;
    const now = this.now();
    try {
      await store.renew([...this.held.keys()], iso(now + this.leaseMs));
      const reaped = await store.reapExpired(iso(now), REPLICA_STOPPED, REAP_BATCH);
      for (const claim of reaped) {
        log.warn(`freed session ${claim.session_id}, held by ${claim.kind} ${claim.holder_id} of replica ${claim.owner} whose lease expired at ${claim.expires_at}`);
      }
    } catch (err) {
      log.warn(`session leases: the heartbeat failed (tried again in ${this.heartbeatMs / 1000} s): ${(err as Error)?.message ?? String(err)}`);
    }
  }
}
