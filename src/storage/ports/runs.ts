import type { ClaimLease } from './sessions.js';
import type { CostEntry } from './costs.js';
import type { NewTurn, Turn } from './turns.js';

/** Runs, their event logs and the API sessions they run on, as every backend stores them. */

/** `waiting_approval`: running, paused until an operator decides a request (never stored: derived from the approvals). */
export type RunStatus = 'pending' | 'running' | 'waiting_approval' | 'complete' | 'error' | 'cancelled';

export const FINISHED_STATUSES: ReadonlySet<RunStatus> = new Set(['complete', 'error', 'cancelled']);

export function isFinished(status: RunStatus): boolean {
  return FINISHED_STATUSES.has(status);
}

/** What started a run: the API, a scheduled job's fire, or a channel (a webhook or Discord message). */
export type RunSource = 'api' | 'job' | 'webhook' | 'discord';

export const RUN_SOURCES: readonly RunSource[] = ['api', 'job', 'webhook', 'discord'];

/** A run that is not the API's: a job's fire or a channel's message, on its own stable session id. */
export interface ChannelRunRequest {
  sessionId: string;
  message: string;
  source: Exclude<RunSource, 'api'>;
  /** The job a fire belongs to (source `job`). */
  jobId?: string;
  provider?: string | null;
  runId?: string;
}

/** The statuses a run is stored with (`waiting_approval` is derived, never stored). */
export const STORED_RUN_STATUSES: readonly RunStatus[] = ['pending', 'running', 'complete', 'error', 'cancelled'];

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
  source: RunSource;
  /** The job whose fire this run is (source `job`); null otherwise. */
  job_id: string | null;
  /** The model that answered the run's last provider call, as the provider reported it; null before one has (and on runs stored before it was kept). */
  model: string | null;
  /** ISO 8601: when the first answer from the provider came (docs/resources.md#runs); null before, and on runs stored before it was kept. */
  first_token_at: string | null;
}

/** What the list of runs across sessions is narrowed to; every filter given must match. */
export interface RunListFilter {
  status?: RunStatus;
  source?: RunSource;
  job_id?: string;
  /** ISO 8601 (UTC, milliseconds): created at or after. */
  since?: string;
  /** ISO 8601 (UTC, milliseconds): created before. */
  until?: string;
}

export interface RunListQuery extends RunListFilter {
  limit: number;
  offset: number;
}

/**
 * Counting every match of a million runs would cost more than the page itself: the count stops
 * here and `total_capped` says it did.
 */
export const RUN_TOTAL_CAP = 10_000;

/** Runs created in one UTC hour with one status (`RunStore.countByHour`). */
export interface RunHourCount {
  /** ISO 8601: the start of the hour. */
  hour: string;
  status: RunStatus;
  runs: number;
}

/** One page of runs across sessions, newest first. */
export interface RunPage {
  runs: RunRecord[];
  /** Matching runs, counted up to `RUN_TOTAL_CAP`. */
  total: number;
  /** True when more than `RUN_TOTAL_CAP` runs match: `total` is the cap, not the count. */
  total_capped: boolean;
  has_more: boolean;
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
  /** Stored with the end, so a run costs no extra write for them. */
  model: string | null;
  first_token_at: string | null;
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
   * Creating an API run also marks its session used (as `SessionStore.touch`) in the same commit,
   * where the store keeps the API sessions too: the caller then does not touch it again.
   */
  readonly touchesSessions?: boolean;
  /**
   * Where `claimsWithRuns`: takes the session's claim for the run (as `SessionClaimStore.acquire`,
   * holder = the run's id, kind `run`, this store's owner) and creates the run, in one commit. False,
   * and nothing created, when a claim that has not expired at `lease.now` holds the session.
   */
  createClaimed?(run: RunRecord, lease: ClaimLease, options?: CreateOptions): Promise<boolean>;
  /**
   * Where present, a run's call costs and turns are written in the commit of its end (`finish`)
   * instead of one commit each (`RunEndWrites`).
   */
  readonly endWrites?: RunEndWrites;
  get(runId: string): Promise<RunRecord | null>;
  /** Newest first. */
  listBySession(sessionId: string, limit: number): Promise<RunRecord[]>;
  /** Runs of every session, newest first (by creation), filtered and paged (`RunPage`). */
  list(query: RunListQuery): Promise<RunPage>;
  /** Runs created at or after `since` (ISO 8601), counted per UTC hour and status, oldest hour first. */
  countByHour(since: string): Promise<RunHourCount[]>;
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

/**
 * Writes of a run's agent turn kept for the commit of its end (`RunStore.finish`): nobody reads
 * them before it, as the run's answer and summary are acknowledged only by that commit and the
 * session's next turn starts only once the run has ended. Each promise settles once its write is
 * committed (or failed to be): when the end is refused (another replica ended the run) or given
 * up, they are written on their own; a failed end carries them again when it is tried again. A
 * process that dies before the end loses them with the run's end.
 */
export interface RunEndWrites {
  /** One provider call's cost (`CostStore.record`), kept for the end of run `runId`. */
  cost(runId: string, entry: CostEntry): Promise<void>;
  /** The run's turns (`TurnStore.addMany`, the session's turn count with them), kept for its end. */
  turns(runId: string, turns: readonly NewTurn[]): Promise<void>;
  /** Writes what is kept for run `runId` on its own: its end was given up (it is left to another replica or the next start). */
  flush(runId: string): Promise<void>;
}

export interface CreateOptions {
  /**
   * Reads the session's last `limit` turns (`TurnStore.history`) in the commit that creates the
   * run, after it, and hands them to `read` when it was created: the run's agent turn needs no
   * read of its own for its context.
   */
  history?: { limit: number; read(turns: Turn[]): void };
}
