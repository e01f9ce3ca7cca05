import type { ApiSession } from './types.js';
import type { RunCost, RunEvent, RunRecord, RunStatus } from '../runs/types.js';

/**
 * The agent's storage, as interfaces: every backend implements them and passes their contract
 * suites (`src/storage/contract/`). A write's promise settles once it has been committed.
 */

/** What a finished run records, besides its terminal event. */
export interface RunOutcome {
  status: Extract<RunStatus, 'complete' | 'error' | 'cancelled'>;
  finished_at: string;
  response: string | null;
  error: string | null;
  tools_used: string[];
  cost: RunCost;
}

/** Runs and their event logs. */
export interface RunStore {
  create(run: RunRecord): Promise<void>;
  /** Status `running` and the `run.start` event, together. */
  start(runId: string, startedAt: string, event: RunEvent): Promise<void>;
  appendEvent(runId: string, event: RunEvent): Promise<void>;
  /**
   * The outcome and the terminal event, together: a stored run is finished iff its log is. With
   * `releaseClaim` on a store that keeps the session claims (`claimsWithRuns`), the claim the run
   * holds on its session (`SessionClaimStore`, holder = run id) is freed in the same commit.
   */
  finish(runId: string, outcome: RunOutcome, event: RunEvent, options?: { releaseClaim?: boolean }): Promise<void>;
  /**
   * True when the session claims live in the same database as the runs (a shared backend): a run
   * can then take its claim in its first statement (`createClaimed`) and free it in its last
   * (`finish`), instead of one more round trip each.
   */
  readonly claimsWithRuns: boolean;
  /**
   * Where `claimsWithRuns`: takes the session's claim for the run (as `SessionClaimStore.acquire`,
   * holder = the run's id, kind `run`, this store's owner) and creates the run, in one commit. False,
   * and nothing created, when a claim that has not expired at `lease.now` holds the session.
   */
  createClaimed?(run: RunRecord, lease: ClaimLease): Promise<boolean>;
  get(runId: string): Promise<RunRecord | null>;
  /** Newest first. */
  listBySession(sessionId: string, limit: number): Promise<RunRecord[]>;
  /** Events with an id above `afterId`, in order. */
  events(runId: string, afterId: number): Promise<RunEvent[]>;
  /**
   * Marks every run left `pending` or `running` (by a process that died) as `error` with `message`
   * and appends a terminal `run.error` event to its log, so a stream of it ends. Returns their ids.
   */
  recoverInterrupted(finishedAt: string, message: string): Promise<string[]>;
  /** Deletes finished runs (and their logs) that finished before `cutoff` (ISO 8601), in slices. */
  pruneFinishedBefore(cutoff: string, options?: { signal?: AbortSignal }): Promise<number>;
}

/** One provider call's usage and price, as stored. */
export interface CostEntry {
  session_id: string;
  run_id: string | null;
  provider: string;
  model: string;
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number;
  timestamp: string;
}

export interface SessionSpend {
  session_id: string;
  calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number;
  last_call_at: string;
}

export interface CostTotals {
  calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number;
  /** Sessions with at least one call. */
  sessions: number;
}

/** A provider call about to start asks to hold part of its session's budget (`CostStore.reserve`). */
export interface SpendRequest {
  session_id: string;
  /** The most the call can cost (its request's bound at the model's price). */
  amount_usd: number;
  /** `max_spend_usd` (> 0). */
  cap_usd: number;
  /** ISO 8601: holds that expired before it are not counted. */
  now: string;
  /** ISO 8601: when this hold stops counting if it is never settled (its holder died). */
  expires_at: string;
}

export type SpendAnswer =
  | { granted: true; hold_id: string }
  | { granted: false; spent_usd: number; held_usd: number };

/** Spend per provider call and per session. */
export interface CostStore {
  record(entry: CostEntry): Promise<void>;
  /**
   * Holds `amount_usd` of the session's budget for a call about to start, decided and stored in one
   * atomic step (across every process sharing the store). Refused when it does not fit in what is
   * left beside the calls in flight (spend + held + amount > cap), a lone call too: the amount is an
   * upper bound of the call's cost, so the spend never passes the cap.
   */
  reserve(request: SpendRequest): Promise<SpendAnswer>;
  /** Records the call's usage (null: it made none) and drops its hold, in one commit. */
  settle(holdId: string, entry: CostEntry | null): Promise<void>;
  /** Everything the session has spent, across restarts (the sum is by session id). */
  sessionSpend(sessionId: string): Promise<number>;
  totals(): Promise<CostTotals>;
  /** Sessions by spend, most first (ties: most recent call first). */
  topSessions(limit: number): Promise<SessionSpend[]>;
  /**
   * Deletes call records older than `cutoff` (ISO 8601), and the totals of sessions whose last
   * call is older: such a session's budget starts again from zero. In slices; returns the calls removed.
   */
  pruneBefore(cutoff: string, options?: { signal?: AbortSignal }): Promise<number>;
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

/** The rule `CostStore.reserve` decides by, shared by every backend. */
export function fitsBudget(spentUsd: number, heldUsd: number, request: Pick<SpendRequest, 'amount_usd' | 'cap_usd'>): boolean {
  return spentUsd < request.cap_usd && spentUsd + heldUsd + request.amount_usd <= request.cap_usd;
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
