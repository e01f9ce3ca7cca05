/** Shapes of runs that cross module boundaries (routes, scheduler, storage, the bus between replicas). */

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

/** The ISO-8601 text of `now()`: how runs and sessions record their times. */
export const isoNow = (now: () => number): string => new Date(now()).toISOString();
