import { MAX_QUERY_CHARS, MIN_QUERY_CHARS, parseAuditTimestamp, queryLength } from '../../../storage/ports/audit-query.js';
import { AUDIT_EXACT_TOTAL, AUDIT_FACET_FIELDS, AUDIT_FILTER_FIELDS, type AuditQuery } from '../../../storage/ports/audit.js';
import { ok, okSchema } from '../../../listener/envelope.js';
import { invalidField } from '../../../listener/errors.js';
import { limitParam, parseLimit, parseOffset } from '../../query.js';
import type { ResourcePlugin } from '../context.js';
import { nullableString } from '../schemas.js';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 500;
const MAX_VALUE_CHARS = 512;
const ENUMS: Partial<Record<(typeof AUDIT_FILTER_FIELDS)[number], readonly string[]>> = {
  result: ['allow', 'deny', 'error'],
  severity: ['info', 'warning', 'error'],
};

const eventSchema = {
  type: 'object',
  required: ['id', 'timestamp', 'event_type', 'category', 'result', 'severity', 'actor', 'source', 'subsystem', 'action',
    'session_id', 'task_id', 'detail', 'prev_hash', 'hash'],
  properties: {
    id: { type: 'string' },
    timestamp: { type: 'string', description: 'ISO 8601 UTC with milliseconds' },
    event_type: { type: 'string' },
    category: { type: 'string' },
    result: { type: 'string', enum: ['allow', 'deny', 'error'] },
    severity: { type: 'string', enum: ['info', 'warning', 'error'] },
    actor: nullableString,
    source: nullableString,
    subsystem: nullableString,
    action: nullableString,
    session_id: nullableString,
    task_id: nullableString,
    detail: { type: 'object', additionalProperties: true, description: 'redacted before it was stored' },
    prev_hash: { type: 'string', description: 'hash of the event before this one in the chain' },
    hash: { type: 'string', description: 'SHA-256 (hex) linking this event to prev_hash (README: verifying a page)' },
  },
} as const;

const facetSchema = {
  type: 'array',
  description: 'values and their counts over every matching event, most first; value null = events without one; estimates when total_is_estimate',
  items: { type: 'object', required: ['value', 'count'], properties: { value: nullableString, count: { type: 'integer' } } },
} as const;

const filterParams = Object.fromEntries(AUDIT_FILTER_FIELDS.map((field) => [field, {
  type: 'string',
  maxLength: MAX_VALUE_CHARS,
  description: ENUMS[field] ? `exact match: ${ENUMS[field]!.join(', ')}` : 'exact match',
}]));

/** GET /audit: the redacted audit events, filtered, faceted and paged (docs/resources.md#audit). */
export const auditPlugin: ResourcePlugin<'auditTrail'> = async (app, ctx) => {
  app.get('/audit', {
    schema: {
      summary: 'Browse the audit log',
      operationId: 'listAuditEvents',
      description:
        'Newest first. Every filter given must match exactly; an empty value is no filter. q is a case-insensitive ' +
        `substring (${MIN_QUERY_CHARS} to ${MAX_QUERY_CHARS} characters) of the event type or of the detail as JSON. ` +
        'since (inclusive) and until (exclusive) are ISO 8601 date-times with Z or an offset. total is exact up to ' +
        `${AUDIT_EXACT_TOTAL} matches; past that the backend may estimate it (total_is_estimate). Facets count category, ` +
        'result, severity and subsystem over every matching event, estimated along with the total.',
      tags: ['audit'],
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: {
          q: { type: 'string', maxLength: MAX_QUERY_CHARS * 4 },
          ...filterParams,
          since: { type: 'string', maxLength: 64, description: 'ISO 8601 with Z or an offset; inclusive' },
          until: { type: 'string', maxLength: 64, description: 'ISO 8601 with Z or an offset; exclusive' },
          limit: limitParam(DEFAULT_LIMIT, MAX_LIMIT),
          offset: { type: 'string', description: 'non-negative integer, default 0' },
        },
      },
      response: {
        200: okSchema({
          type: 'object',
          required: ['events', 'total', 'total_is_estimate', 'has_more', 'facets'],
          properties: {
            events: { type: 'array', items: eventSchema },
            total: { type: 'integer', description: 'every matching event; exact unless total_is_estimate' },
            total_is_estimate: {
              type: 'boolean',
              description: `true: more than ${AUDIT_EXACT_TOTAL} events match and total and the facet counts are estimated ` +
                'from the newest of them (the page itself is exact)',
            },
            has_more: { type: 'boolean' },
            facets: {
              type: 'object',
              required: [...AUDIT_FACET_FIELDS],
              properties: Object.fromEntries(AUDIT_FACET_FIELDS.map((field) => [field, facetSchema])),
            },
          },
        }),
      },
    },
  }, async (request) => ok(await ctx.auditTrail.query(parseAuditQuery(request.query))));
};

/** The query string as an audit query; a 400 naming the parameter for anything it cannot mean. */
function parseAuditQuery(raw: Record<string, string | undefined>): AuditQuery {
  const query: AuditQuery = {
    limit: parseLimit(raw.limit, DEFAULT_LIMIT, MAX_LIMIT),
    offset: parseOffset(raw.offset),
  };
  for (const field of AUDIT_FILTER_FIELDS) {
    const value = raw[field];
    if (value === undefined || value === '') continue;
    const allowed = ENUMS[field];
    if (allowed && !allowed.includes(value)) throw invalidField(`query parameter "${field}" must be one of ${allowed.join(', ')}`);
    query[field] = value;
  }
  if (raw.q !== undefined && raw.q !== '') {
    const length = queryLength(raw.q);
    if (length < MIN_QUERY_CHARS || length > MAX_QUERY_CHARS) {
      throw invalidField(`query parameter "q" must be ${MIN_QUERY_CHARS} to ${MAX_QUERY_CHARS} characters`);
    }
    query.q = raw.q;
  }
  for (const bound of ['since', 'until'] as const) {
    const value = raw[bound];
    if (value === undefined || value === '') continue;
    const parsed = parseAuditTimestamp(value);
    if (parsed === null) {
      throw invalidField(`query parameter "${bound}" must be an ISO 8601 date-time with Z or an offset, such as 2026-01-05T13:00:00Z`);
    }
    query[bound] = parsed;
  }
  if (query.since !== undefined && query.until !== undefined && query.since >= query.until) {
    throw invalidField('query parameter "until" must be later than "since"');
  }
  return query;
}
