import type { Logger } from '../log.js';
import type { RedisConnection } from './redis-connection.js';

/** How often a replica writes its liveness key, and looks at the others'. */
export const LIVENESS_INTERVAL_MS = 1_000;
/** How long a liveness key lives unless renewed: three beats, so one slow beat is not a death. */
export const LIVENESS_TTL_MS = 3_000;

export interface ReplicaLivenessOptions {
  connection: RedisConnection;
  /** `storage.redis_key_prefix`: the keys are `<prefix>replica:<id>`, the roll `<prefix>replicas`. */
  keyPrefix: string;
  /** This replica (`Storage.owner`). */
  replicaId: string;
  log: Logger;
  now?: () => number;
  intervalMs?: number;
  ttlMs?: number;
  /** The latest lease end among a replica's claims in the database (`SessionClaimStore.renewedBy`). */
  renewedBy(replicaId: string): Promise<string | null>;
  /** A replica judged stopped: free what it held up to the renewal seen (`SessionLeases.reapReplica`). */
  stopped(replicaId: string, upTo: string | null): Promise<void>;
  /** This replica's key could not be written: show through the database that it works (`SessionLeases.renewNow`). */
  unrecorded(): Promise<void>;
}

/** A replica whose key was found missing, and the renewal of its claims seen then. */
interface Suspect {
  renewed: string | null;
}

/**
 * Dead replicas found in seconds, while the database leases stay long (20 s) so that a slow
 * replica is not churned: every replica writes `<prefix>replica:<id>` with a 3 s TTL every second
 * and lists itself in `<prefix>replicas`. Judging another replica stopped takes all of:
 * - this replica's own write just succeeded (Redis answers here; with Redis down nobody judges,
 *   and the leases alone decide, as before);
 * - its key was seen by this process since Redis last answered here (a replica whose Redis was
 *   down from its start has no key to lose);
 * - its key is missing on two beats in a row, and its claims in the database were not renewed
 *   between them: a replica cut off from Redis alone renews its claims every half beat
 *   (`unrecorded`), so it is never taken for dead while it works.
 * Its claims are then reaped at once as if their leases had expired; its waiting channel messages
 * are given back to every replica.
 */
export class ReplicaLiveness {
  private readonly now: () => number;
  private readonly intervalMs: number;
  private readonly ttlMs: number;
  /** Replicas whose key this process saw since Redis last answered it. */
  private readonly seen = new Set<string>();
  private readonly suspects = new Map<string, Suspect>();
  /** When each other replica last wrote its key, as read at this process's last successful beat (and when that was). */
  private lastWrites: { byReplica: Map<string, number>; at: number } = { byReplica: new Map(), at: 0 };
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private beating: Promise<void> = Promise.resolve();

  constructor(private readonly options: ReplicaLivenessOptions) {
    this.now = options.now ?? Date.now;
    this.intervalMs = options.intervalMs ?? LIVENESS_INTERVAL_MS;
    this.ttlMs = options.ttlMs ?? LIVENESS_TTL_MS;
  }

  private keyOf(replicaId: string): string {
    return `${this.options.keyPrefix}replica:${replicaId}`;
  }

  private get rollKey(): string {
    return `${this.options.keyPrefix}replicas`;
  }

  /** Writes the key once (waiting for it), then beats in the background. */
  async start(): Promise<void> {
    this.running = true;
    this.beating = this.beat();
    await this.beating;
  }

  /** Stops writing (the key then expires within its TTL); waits for a beat in progress. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.beating;
  }

  /**
   * When each other replica with a key last wrote it (its own clock, the one its claims' leases are
   * written by), as of the last beat if that beat reached Redis within a key's TTL; empty otherwise
   * (what is known of them is stale, so nobody is vouched for).
   */
  lastWritten(): ReadonlyMap<string, number> {
    return this.now() - this.lastWrites.at <= this.ttlMs ? this.lastWrites.byReplica : new Map();
  }

  private schedule(delayMs: number): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      this.beating = this.beat();
    }, delayMs);
    this.timer.unref();
  }

  private async beat(): Promise<void> {
    let next = this.intervalMs;
    try {
      const others = await this.record();
      if (others === null) {
        // Not written: what this process saw of the others may be stale, and its own key may lapse.
        this.seen.clear();
        this.suspects.clear();
        await this.options.unrecorded();
        next = Math.floor(this.intervalMs / 2);
      } else {
        const byReplica = new Map<string, number>();
        for (const [id, key] of others) if (key !== null && Number.isFinite(Number(key))) byReplica.set(id, Number(key));
        this.lastWrites = { byReplica, at: this.now() };
        await this.judge(others);
      }
    } catch (err) {
      this.options.log.warn(`replica liveness: the beat failed (tried again in ${next / 1000} s): ${(err as Error)?.message ?? String(err)}`);
    } finally {
      this.schedule(next);
    }
  }

  /**
   * Writes this replica's key; the other replicas on the roll and each one's key (when its replica
   * wrote it, by that replica's clock), or null when Redis did not answer.
   */
  private async record(): Promise<Map<string, string | null> | null> {
    const { connection, replicaId } = this.options;
    try {
      const replies = await connection.client.multi()
        .set(this.keyOf(replicaId), String(this.now()), 'PX', this.ttlMs)
        .sadd(this.rollKey, replicaId)
        .smembers(this.rollKey)
        .exec();
      const failed = replies?.find(([error]) => error !== null);
      if (!replies || failed) throw failed?.[0] ?? new Error('the transaction was discarded');
      const others = (replies[2]![1] as string[]).filter((id) => id !== replicaId).sort();
      if (others.length === 0) return new Map();
      const values = await connection.client.mget(others.map((id) => this.keyOf(id)));
      return new Map(others.map((id, n) => [id, values[n] ?? null]));
    } catch (err) {
      connection.reportFailure('writing the replica liveness key', err);
      return null;
    }
  }

  private async judge(others: Map<string, string | null>): Promise<void> {
    for (const [id, key] of others) {
      if (key !== null) {
        this.seen.add(id);
        this.suspects.delete(id);
        continue;
      }
      if (!this.seen.has(id)) continue;
      const renewed = await this.options.renewedBy(id);
      const suspect = this.suspects.get(id);
      if (!suspect || suspect.renewed !== renewed) {
        // First beat without its key, or its claims were renewed since: look again next beat.
        this.suspects.set(id, { renewed });
        continue;
      }
      await this.options.stopped(id, renewed);
      this.suspects.delete(id);
      this.seen.delete(id);
      await this.options.connection.client.srem(this.rollKey, id).catch(() => undefined);
    }
  }
}
