import type { ChannelRunRequest, RunRecord } from '../storage/ports/runs.js';

/** The part of the agent runtime a fire drives; runs land on the job's own session `job:<id>`. */
export interface JobRunPort {
  startChannelRun(request: ChannelRunRequest): Promise<RunRecord>;
  whenRunFinished(runId: string): Promise<RunRecord | null>;
  getRun(runId: string): Promise<RunRecord | null>;
  /** Throws the agent's `budget_exceeded` when the session has spent `max_spend_usd`. */
  checkBudget(sessionId: string, provider?: string | null): Promise<void>;
}

export const jobSessionId = (jobId: string): string => `job:${jobId}`;
