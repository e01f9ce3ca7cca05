import { invalidField } from '../../../listener/errors.js';
import { parseAuditTimestamp } from '../../../storage/ports/audit-query.js';
import { RUN_SOURCES, RUN_TOTAL_CAP, STORED_RUN_STATUSES, type RunListQuery, type RunSource, type RunStatus } from '../../../storage/ports/runs.js';
import { limitParam, parseLimit, parseOffset } from '../../query.js';
import { MAX_ID_CHARS, runSchema } from '../schemas.js';

/** A session's runs (with session_id): as before the list across sessions existed. */
export const SESSION_LIST = { fallback: 20, max: 100 } as const;
/** Runs of every session (without session_id), paged by position. */
export const ALL_LIST = { fallback: 50, max: 200 } as const;

/** The parameters that narrow or page the list across sessions; none of them applies to a session's list. */
const CROSS_SESSION_PARAMS = ['status', 'source', 'job_id', 'since', 'until', 'offset'] as const;

export const runListQuerySchema = {
  type: 'object',
  properties: {
    session_id: { type: 'string', minLength: 1, maxLength: MAX_ID_CHARS, description: 'one session\'s runs; without it, every session\'s' },
    limit: { ...limitParam(ALL_LIST.fallback, ALL_LIST.max), description: `integer; with session_id default ${SESSION_LIST.fallback}, clamped to 1..${SESSION_LIST.max}; without, default ${ALL_LIST.fallback}, clamped to 1..${ALL_LIST.max}` },
    offset: { type: 'string', description: 'non-negative integer, default 0 (without session_id)' },
    status: { type: 'string', maxLength: 32, description: `exact match: ${STORED_RUN_STATUSES.join(', ')} (a run waiting for an approval is running)` },
    source: { type: 'string', maxLength: 32, description: `exact match: ${RUN_SOURCES.join(', ')}` },
    job_id: { type: 'string', maxLength: MAX_ID_CHARS, description: 'runs of this scheduled job' },
    since: { type: 'string', maxLength: 64, description: 'created at or after; ISO 8601 with Z or an offset' },
    until: { type: 'string', maxLength: 64, description: 'created before; ISO 8601 with Z or an offset' },
  },
} as const;

export const runListResponseSchema = {
  type: 'object',
  required: ['runs'],
  properties: {
    runs: { type: 'array', items: runSchema },
    total: { type: 'integer', description: `without session_id: matching runs, counted up to ${RUN_TOTAL_CAP}` },
    total_capped: { type: 'boolean', description: `without session_id: more than ${RUN_TOTAL_CAP} runs match (total is the cap)` },
    has_more: { type: 'boolean', description: 'without session_id: runs follow this page (ask again with offset + limit)' },
  },
} as const;

export type RunListParams = Partial<Record<keyof typeof runListQuerySchema.properties, string>>;

/** A 400 naming the parameter when a cross-session parameter is given with session_id. */
export function refuseCrossSessionParams(raw: RunListParams): void {
  const given = CROSS_SESSION_PARAMS.find((name) => raw[name] !== undefined && raw[name] !== '');
  if (given) throw invalidField(`query parameter "${given}" applies only without session_id`);
}

/** The query string as a list across sessions; a 400 naming the parameter for anything it cannot mean. */
export function parseRunListQuery(raw: RunListParams): RunListQuery {
  const query: RunListQuery = { limit: parseLimit(raw.limit, ALL_LIST.fallback, ALL_LIST.max), offset: parseOffset(raw.offset) };
  if (raw.status) query.status = oneOf('status', raw.status, STORED_RUN_STATUSES) as RunStatus;
  if (raw.source) query.source = oneOf('source', raw.source, RUN_SOURCES) as RunSource;
  if (raw.job_id) query.job_id = raw.job_id;
  for (const bound of ['since', 'until'] as const) {
    const value = raw[bound];
    if (!value) continue;
    const parsed = parseAuditTimestamp(value);
    if (parsed === null) throw invalidField(`query parameter "${bound}" must be an ISO 8601 date-time with Z or an offset, such as 2026-01-05T13:00:00Z`);
    query[bound] = parsed;
  }
  if (query.since !== undefined && query.until !== undefined && query.since >= query.until) {
    throw invalidField('query parameter "until" must be later than "since"');
  }
  return query;
}

function oneOf(name: string, value: string, allowed: readonly string[]): string {
  if (!allowed.includes(value)) throw invalidField(`query parameter "${name}" must be one of ${allowed.join(', ')}`);
  return value;
}
