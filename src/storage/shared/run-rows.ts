import type { RunRecord } from '../ports/runs.js';

/** A row of `runs`: the API record flattened (id, tools_used as JSON, cost as three columns). */
export type RunRow = Omit<RunRecord, 'run_id' | 'tools_used' | 'cost'> & {
  id: string;
  tools_used: string;
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number;
};

export const RUN_COLUMNS = `id, session_id, message, status, provider, resolved_provider, created_at, started_at, finished_at,
  response, error, tools_used, prompt_tokens, completion_tokens, cost_usd, source, job_id, model, first_token_at`;

/** A `runs` row as the API's run record. */
export function toRecord(row: RunRow): RunRecord {
  return {
    run_id: row.id,
    session_id: row.session_id,
    message: row.message,
    status: row.status,
    provider: row.provider,
    resolved_provider: row.resolved_provider,
    created_at: row.created_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
    response: row.response,
    error: row.error,
    tools_used: JSON.parse(row.tools_used) as string[],
    cost: { prompt_tokens: row.prompt_tokens, completion_tokens: row.completion_tokens, cost_usd: row.cost_usd },
    source: row.source,
    job_id: row.job_id,
    model: row.model,
    first_token_at: row.first_token_at,
  };
}
