import type { ClaimLease } from './sessions.js';

/** Runs, their event logs and the API sessions they run on, as every backend stores them. */

/** `waiting_approval`: running, paused until an operator decides a request (never stored: derived from the approvals). */
export type RunStatus = 'pending' | 'running' | 'waiting_approval' | 'complete' | 'error' | 'cancelled';

export const FINISHED_STATUSES: ReadonlySet<RunStatus> = new Set(['complete', 'error', 'cancelled']);

export function isFinished(status: RunStatus): boolean {
  return FINISHED_STATUSES.has(status);
}

/** Tokens and spend of one run or chat turn (every provider call of it summed). */
export interface RunCost {
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number;
}

export const ZERO_COST: Readonly<RunCost> = Object.freeze({ prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 });

/** A run as the API returns it (docs/resources.md#runs). */
export interface RunRecord {
  run_id: string;
  session_id: string;
  /** What the run was asked, passed through the secret censor (stored before the run is acknowledged). */
  message: string;
  status: RunStatus;
  /** The provider named in the request; null when the session's provider was used. */
  provider: string | null;
  /** The provider that answers (resolved when the run is created). */
  resolved_provider: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** The final answer, passed through the secret censor; null until complete. */
  response: string | null;
  error: string | null;
  /** Names of the tools the run called, in order of first use, each once. */
  tools_used: string[];
  cost: RunCost;
}

export type RunEventName = 'run.start' | 'tool.request' | 'tool.result' | 'approval.request' | 'approval.result' | 'run.complete' | 'run.error' | 'run.cancelled';

export const TERMINAL_EVENTS: ReadonlySet<RunEventName> = new Set(['run.complete', 'run.error', 'run.cancelled']);

/**
 * One entry of a run's event log. `data` is the one-line JSON sent on the wire, serialised once
 * when the event happens and stored as is, so neither viewers nor replays serialise it again.
 */
export interface RunEvent {
  id: number;
  name: RunEventName;
  data: string;
}

export const isoNow = (now: () => number): string => new Date(now()).toISOString();

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
