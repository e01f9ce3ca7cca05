/** An API session (docs/resources.md#api-sessions). Lives in memory only. */
export interface ApiSession {
  id: string;
  name: string | null;
  provider: string;
  created_at: string;
  last_used_at: string;
  /** Turns stored through this session since it was created. */
  turn_count: number;
}

/**
 * API sessions. In memory on the embedded backend (docs/resources.md#api-sessions: a restart forgets them, their
 * turns persist); shared where several replicas serve one API.
 */
export interface SessionStore {
  /** A new session; past the store's bound the least recently used idle session is ended first. */
  create(input: { name?: string | null; provider: string }): Promise<ApiSession>;
  get(id: string): Promise<ApiSession | null>;
  /** Marks the session used now (a chat or run started on it). */
  touch(id: string): Promise<void>;
  /** Counts turns stored through the session; a no-op once it has ended. */
  addTurns(id: string, count: number): Promise<void>;
  /** Most recently used first. */
  list(limit: number): Promise<ApiSession[]>;
  count(): Promise<number>;
  /** Ends the session; false when it is unknown. */
  delete(id: string): Promise<boolean>;
}

/** The times a new session claim is taken with (ISO 8601): it lasts until `expires_at`; one older than `now` is taken over. */
export interface ClaimLease {
  expires_at: string;
  now: string;
}

/** What holds a session's one slot for work in flight, on whichever replica runs it. */
export interface SessionClaim {
  session_id: string;
  /** The run's id, or the chat's own id. */
  holder_id: string;
  kind: 'run' | 'chat';
  /** The replica holding it (`Storage.owner`). */
  owner: string;
  /** ISO 8601: past it the holder is taken for dead (its replica stopped renewing the claim). */
  expires_at: string;
}

/**
 * One run or chat in flight per session across every process sharing the store: each holds a
 * claim with a lease that its replica renews while the work runs. Timestamps are ISO 8601 from the
 * caller's clock. The store is made for one owner (`Storage.owner`): its claims are taken, renewed
 * and released as that owner's.
 */
export interface SessionClaimStore {
  /**
   * Takes the session's claim in one atomic step, unless a claim that has not expired at `now`
   * holds it (an expired claim is taken over, whoever held it). True when taken. Where the budget
   * holds are in the same store (a shared database), the same step frees the holds the session's
   * earlier holders left (only a claim holder makes calls, and the new one has made none yet): a
   * replica killed mid-call and taken over before any reaper ran leaves no budget held.
   */
  acquire(claim: Omit<SessionClaim, 'owner'>, now: string): Promise<boolean>;
  /** Frees the session if `holderId` still holds it. */
  release(sessionId: string, holderId: string): Promise<void>;
  /** Extends the leases of this owner's claims held by `holderIds` to `expiresAt`. */
  renew(holderIds: string[], expiresAt: string): Promise<void>;
  /** The claim on the session that has not expired at `now`, or null. */
  holder(sessionId: string, now: string): Promise<SessionClaim | null>;
  /** Drops every claim of this owner: its previous process died holding them (call at start). */
  releaseOwn(): Promise<void>;
  /**
   * Frees the sessions whose claims of other owners expired before `now` (their replica stopped),
   * at most `limit`, and ends each unfinished run among their holders as `error` with `message`
   * and a terminal `run.error` event, in one step per claim: exactly one process reaps a claim.
   * Where channel messages are shared, the messages their owners had claimed and not started are
   * given back in the same step, for any replica to take at once; so are the budget holds of the
   * calls in flight on those sessions (`CostStore.reserve`: only a session's claim holder makes
   * calls on it), so its next call is not refused for calls nobody will settle. Returns the claims
   * it reaped. The claims of the `spared` owners are left: replicas seen alive, whose expired claims
   * are judged by their liveness (`reapOwner`) rather than taken for stopped.
   */
  reapExpired(now: string, message: string, limit: number, spared?: readonly string[]): Promise<SessionClaim[]>;
  /**
   * Ends as `error` with `message` (and a terminal `run.error`) the unfinished runs, at most `limit`,
   * that hold no claim on their session: a live run always does (it is created with it and frees it
   * with its end), so one without had its replica lose a write to the database it could not redo.
   * Returns their ids.
   */
  reapUnclaimed(now: string, message: string, limit: number): Promise<string[]>;
  /**
   * The latest lease end among `owner`'s claims, or null when it holds none: how a replica whose
   * liveness key is gone from Redis shows it still works (its claims are renewed meanwhile).
   */
  renewedBy(owner: string): Promise<string | null>;
  /**
   * As `reapExpired`, for the claims of one other owner judged stopped by its liveness key
   * (`ReplicaLiveness`) before they expire: those whose lease ends at or before `upTo` (the
   * renewal seen while it was judged; null: none), at most `limit`. Its waiting channel messages
   * are given back even when it held no claim. Never reaps this store's own owner.
   */
  reapOwner(owner: string, upTo: string | null, now: string, message: string, limit: number): Promise<SessionClaim[]>;
}
