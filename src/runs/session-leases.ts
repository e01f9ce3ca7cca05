import type { Logger } from '../log.js';
import { sessionBusy } from '../contracts/agent-errors.js';
import type { ClaimLease, SessionClaim, SessionClaimStore } from '../storage/ports/sessions.js';

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
/**
 * What a run is ended with when its claim lapsed while its replica was alive (it wrote its liveness
 * key after the lease's end) but could not reach the database to renew it: nothing stopped.
 */
export const DATABASE_CUT_OFF = 'interrupted: the database was unavailable to the replica running it';
/** What a run left without a claim (its replica could not store its end or its claim's release) is ended with. */
export const DATABASE_UNAVAILABLE = 'interrupted: the database was unavailable while its replica stored it';
/** Expired claims reaped per heartbeat at most (the next heartbeat takes the rest). */
const REAP_BATCH = 100;
/** First wait before a failed release of a claim is tried again; it doubles up to the max. */
const RELEASE_RETRY_MS = 100;
const RELEASE_RETRY_MAX_MS = 2_000;

const iso = (ms: number): string => new Date(ms).toISOString();

export interface SessionLeasesOptions {
  store: SessionClaimStore;
  log: Logger;
  now?: () => number;
  /** Tests shorten both; the lease must outlast a few heartbeats. */
  leaseMs?: number;
  heartbeatMs?: number;
  /**
   * A claim of this process lapsed before it could be renewed (the store was unreachable for a
   * lease): other replicas may now end its work and take its session, so the work must stop here.
   */
  onLost?(sessionId: string, holderId: string): void;
}

/** A claim this process holds, and when it lapses unless renewed (this process's clock). */
interface HeldClaim {
  sessionId: string;
  expiresAt: number;
}

/**
 * The shared side of "one run or chat in flight per session": the local `SessionSlots` keep it
 * within this process, the claims in the store across replicas. While work runs its claim is
 * renewed every heartbeat; the same heartbeat frees the sessions of replicas whose claims expired
 * and ends the runs they held, so a replica killed mid-run leaves nothing unfinished for longer
 * than a lease and a heartbeat.
 */
export class SessionLeases {
  /** The claims this process holds, by holder id (one per run or chat in flight). */
  private readonly held = new Map<string, HeldClaim>();
  private readonly now: () => number;
  private readonly leaseMs: number;
  private readonly heartbeatMs: number;
  private timer: NodeJS.Timeout | null = null;
  /** Told when a heartbeat freed what stopped replicas held (wired once, at assembly). */
  private readonly reapedListeners: (() => void)[] = [];
  /** When each other replica last showed itself alive, by its own clock (`ReplicaLiveness`); none known without Redis. */
  private lastAlive: () => ReadonlyMap<string, number> = () => new Map();
  private beating: Promise<void> = Promise.resolve();
  /** Releases being tried again after a failure. */
  private readonly releasing = new Set<NodeJS.Timeout>();
  private stopped = false;

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
    let taken: boolean;
    try {
      taken = await take({ expires_at: iso(now + this.leaseMs), now: iso(now) });
    } catch (err) {
      // The statement may have committed before its answer was lost: whatever it took is given
      // back, so the session is not left busy for a lease by work that never started.
      this.retryRelease(sessionId, holderId, now + this.leaseMs, 1);
      throw err;
    }
    if (!taken) throw sessionBusy(sessionId);
    this.held.set(holderId, { sessionId, expiresAt: now + this.leaseMs });
  }

  /** Frees the claim. Never throws: a claim that could not be deleted stops being renewed and expires. */
  async release(sessionId: string, holderId: string): Promise<void> {
    if (!this.held.delete(holderId)) return;
    try {
      await this.options.store.release(sessionId, holderId);
    } catch (err) {
      // Work that failed on a passing database error leaves an idle session: the next request on
      // it must not find it busy for a lease. The delete is retried (it names the holder, so it
      // never frees a later claim); the claim's expiry stays the bound.
      this.options.log.warn(`could not free session ${sessionId} in the store (trying again; it frees itself within ${this.leaseMs / 1000} s): ${(err as Error)?.message ?? String(err)}`);
      this.retryRelease(sessionId, holderId, this.now() + this.leaseMs, 1);
    }
  }

  private retryRelease(sessionId: string, holderId: string, until: number, attempt: number): void {
    if (this.stopped || this.now() >= until) return;
    const timer = setTimeout(() => {
      this.releasing.delete(timer);
      this.options.store.release(sessionId, holderId).catch(() => this.retryRelease(sessionId, holderId, until, attempt + 1));
    }, Math.min(RELEASE_RETRY_MAX_MS, RELEASE_RETRY_MS * 2 ** (attempt - 1)));
    timer.unref();
    this.releasing.add(timer);
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

  /**
   * Hears that a heartbeat freed the sessions (and the channel messages) of stopped replicas: a
   * channel takes the freed messages then, not at its next periodic claim.
   */
  onReaped(listener: () => void): void {
    this.reapedListeners.push(listener);
  }

  /**
   * Renews this process's claims now, between heartbeats: while its liveness key cannot be written
   * (`ReplicaLiveness`), the renewals in the store are what shows the other replicas it still works.
   */
  async renewNow(): Promise<void> {
    const now = this.now();
    const holders = [...this.held.keys()];
    if (holders.length === 0) return;
    try {
      await this.options.store.renew(holders, iso(now + this.leaseMs));
      for (const holderId of holders) {
        const claim = this.held.get(holderId);
        if (claim) claim.expiresAt = now + this.leaseMs;
      }
    } catch (err) {
      this.options.log.warn(`session leases: could not renew the claims early (the heartbeat tries again): ${(err as Error)?.message ?? String(err)}`);
    }
  }

  /**
   * Frees at once what `owner` held, judged stopped by its liveness key (`ReplicaLiveness`) before
   * its leases expire: its claims whose lease ends by `upTo` (the renewal seen unchanged while it was
   * judged), their runs ended as interrupted, its waiting channel messages given back.
   */
  async reapReplica(owner: string, upTo: string | null): Promise<void> {
    const { store, log } = this.options;
    let reaped: SessionClaim[];
    let total = 0;
    do {
      reaped = await store.reapOwner(owner, upTo, iso(this.now()), REPLICA_STOPPED, REAP_BATCH);
      total += reaped.length;
      for (const claim of reaped) {
        log.warn(`freed session ${claim.session_id}, held by ${claim.kind} ${claim.holder_id} of replica ${claim.owner} whose liveness key expired`);
      }
    } while (reaped.length === REAP_BATCH);
    // A replica that shut down cleanly left nothing: its key lapsing is news, not a warning.
    log[total > 0 ? 'warn' : 'info'](`replica ${owner} stopped (its liveness key expired): freed ${total} session(s) and gave back its waiting channel messages`);
    for (const listener of this.reapedListeners) listener();
  }

  /**
   * Learns when the other replicas last showed themselves alive: an expired claim whose replica was
   * alive after the claim's lease ended is ended as cut off from the database, not as stopped, so
   * the run's error tells the truth. (A killed replica's last sign of life comes before its lease ends:
   * it renews well within a lease, and both times are written by its own clock.)
   */
  knowLastAliveBy(source: () => ReadonlyMap<string, number>): void {
    this.lastAlive = source;
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
    this.stopped = true;
    for (const timer of this.releasing) clearTimeout(timer);
    this.releasing.clear();
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
    this.dropLapsed(now);
    try {
      const holders = [...this.held.keys()];
      await store.renew(holders, iso(now + this.leaseMs));
      for (const holderId of holders) {
        const claim = this.held.get(holderId);
        if (claim) claim.expiresAt = now + this.leaseMs;
      }
      // Replicas seen alive are spared by the plain reap: their expired claims are ended as cut
      // off once they are seen alive past the lease, or as stopped once their liveness key lapses.
      const alive = this.lastAlive();
      const reaped = [...await this.reapCutOff(now, alive), ...await store.reapExpired(iso(now), REPLICA_STOPPED, REAP_BATCH, [...alive.keys()])];
      for (const claim of reaped) {
        log.warn(`freed session ${claim.session_id}, held by ${claim.kind} ${claim.holder_id} of replica ${claim.owner} whose lease expired at ${claim.expires_at}`);
      }
      const unclaimed = await store.reapUnclaimed(iso(now), DATABASE_UNAVAILABLE, REAP_BATCH);
      if (unclaimed.length > 0) log.warn(`ended ${unclaimed.length} run(s) left unfinished without a claim on their session (the database was unavailable): ${unclaimed.join(', ')}`);
      if (reaped.length > 0 || unclaimed.length > 0) for (const listener of this.reapedListeners) listener();
    } catch (err) {
      log.warn(`session leases: the heartbeat failed (tried again in ${this.heartbeatMs / 1000} s): ${(err as Error)?.message ?? String(err)}`);
    }
  }

  /** Ends the expired claims of replicas seen alive after their leases ended: cut off from the database, not stopped. */
  private async reapCutOff(now: number, alive: ReadonlyMap<string, number>): Promise<SessionClaim[]> {
    const reaped: SessionClaim[] = [];
    for (const [owner, aliveAt] of alive) {
      // Strictly before: a lease that ended at the very moment of the last sign of life proves nothing.
      const upTo = iso(Math.min(now, aliveAt) - 1);
      let batch: SessionClaim[];
      do {
        batch = await this.options.store.reapOwner(owner, upTo, iso(now), DATABASE_CUT_OFF, REAP_BATCH);
        reaped.push(...batch);
      } while (batch.length === REAP_BATCH);
    }
    return reaped;
  }

  /**
   * Forgets the claims whose lease ran out before a renewal got through and has their work stopped:
   * from now on another replica may reap them, end their runs as interrupted and take the session.
   */
  private dropLapsed(now: number): void {
    for (const [holderId, claim] of this.held) {
      if (claim.expiresAt > now) continue;
      this.held.delete(holderId);
      this.options.log.warn(`session leases: the claim of ${holderId} on session ${claim.sessionId} lapsed before it could be renewed; its work stops here`);
      this.options.onLost?.(claim.sessionId, holderId);
    }
  }
}
