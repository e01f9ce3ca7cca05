/** What every backend's cost store keeps: each provider call's price and the budget holds of calls in flight. */

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

/** Calls of one provider model in one UTC hour (`CostStore.spendByHour`). */
export interface HourSpend {
  /** ISO 8601: the start of the hour. */
  hour: string;
  provider: string;
  model: string;
  calls: number;
  cost_usd: number;
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
  /** Sessions by spend, most first (ties: most recent call first), from position `offset` (default 0). */
  topSessions(limit: number, offset?: number): Promise<SessionSpend[]>;
  /** Calls at or after `since` (ISO 8601), summed per UTC hour, provider and model, oldest hour first. */
  spendByHour(since: string): Promise<HourSpend[]>;
  /**
   * Deletes call records older than `cutoff` (ISO 8601), and the totals of sessions whose last
   * call is older: such a session's budget starts again from zero. In slices; returns the calls removed.
   */
  pruneBefore(cutoff: string, options?: { signal?: AbortSignal }): Promise<number>;
}

/** The rule `CostStore.reserve` decides by, shared by every backend. */
export function fitsBudget(spentUsd: number, heldUsd: number, request: Pick<SpendRequest, 'amount_usd' | 'cap_usd'>): boolean {
  return spentUsd < request.cap_usd && spentUsd + heldUsd + request.amount_usd <= request.cap_usd;
}
