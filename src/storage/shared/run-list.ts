import { RUN_TOTAL_CAP, type RunListFilter, type RunListQuery, type RunPage, type RunRecord } from '../ports/runs.js';
import { RUN_COLUMNS } from './run-rows.js';

/**
 * The statements of the list of runs across sessions, for both backends (`placeholder(n)` writes
 * the n-th parameter, 1-based). Newest first is `seq DESC`: each filter has an index on
 * (column, seq), so a page is a short index range scan, and the count reads at most
 * `RUN_TOTAL_CAP + 1` index entries.
 */
export function runListStatements(query: RunListQuery, placeholder: (n: number) => string): {
  page: string;
  count: string;
  params: unknown[];
  pageParams: unknown[];
} {
  const conditions: string[] = [];
  const params: unknown[] = [];
  const add = (condition: string, value: unknown) => {
    params.push(value);
    conditions.push(condition.replace('?', placeholder(params.length)));
  };
  const filter: RunListFilter = query;
  if (filter.status !== undefined) add('status = ?', filter.status);
  if (filter.source !== undefined) add('source = ?', filter.source);
  if (filter.job_id !== undefined) add('job_id = ?', filter.job_id);
  if (filter.since !== undefined) add('created_at >= ?', filter.since);
  if (filter.until !== undefined) add('created_at < ?', filter.until);
  const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
  const n = params.length;
  return {
    // One row past the page says whether another follows.
    page: `SELECT ${RUN_COLUMNS} FROM runs ${where} ORDER BY seq DESC LIMIT ${placeholder(n + 1)} OFFSET ${placeholder(n + 2)}`,
    count: `SELECT count(*) AS n FROM (SELECT 1 FROM runs ${where} LIMIT ${RUN_TOTAL_CAP + 1}) AS matching`,
    params,
    pageParams: [...params, query.limit + 1, query.offset],
  };
}

/** The page from its rows (up to `limit + 1`) and the capped count. */
export function runPage(rows: RunRecord[], limit: number, counted: number): RunPage {
  return {
    runs: rows.slice(0, limit),
    total: Math.min(counted, RUN_TOTAL_CAP),
    total_capped: counted > RUN_TOTAL_CAP,
    has_more: rows.length > limit,
  };
}
