import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuditSink } from '../../audit/types.js';
import { MAX_QUERY_WORDS, queryWords } from '../../memory/query.js';

import type { TurnStore } from '../../memory/types.js';
import { ok, okSchema } from '../envelope.js';
import { badRequest, notFound } from '../errors.js';
import { limitParam, parseLimit } from '../query.js';

export interface MemoryRoutesContext {
  memory: TurnStore;
  audit: AuditSink;
}

const SEARCH_DEFAULT_LIMIT = 10;
const SEARCH_MAX_LIMIT = 100;
const MAX_QUERY_CHARS = 1_000;

const turnIdParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', minLength: 1, maxLength: 200 } },
} as const;

const searchResultSchema = {
  type: 'object',
  required: ['id', 'session_id', 'role', 'content', 'provider', 'timestamp', 'pinned', 'preview', 'score'],
  properties: {
    id: { type: 'string' },
    session_id: { type: 'string' },
    role: { type: 'string', enum: ['user', 'assistant', 'system', 'tool'] },
    content: { type: 'string', description: 'the whole text of the turn' },
    provider: { type: ['string', 'null'] },
    timestamp: { type: 'string', description: 'ISO 8601 UTC' },
    pinned: { type: 'boolean' },
    preview: { type: 'string', maxLength: 200, description: 'excerpt around the first match' },
    score: { type: 'number', description: 'relevance (negated bm25), higher is better' },
  },
} as const;

/** Search, pin and delete of stored conversation turns (spec: Memory endpoints). */
export function memoryRoutes(app: FastifyInstance, ctx: MemoryRoutesContext): void {
  app.get('/api/v1/memory/search', {
    schema: {
      summary: 'Full-text search of stored turns',
      description:
        'Every word of q is required (at most 32), in any order; best matches (bm25) first. FTS5 ' +
        'query syntax is not interpreted: quotes, *, NEAR, AND/OR/NOT and column filters are plain words.',
      tags: ['memory'],
      querystring: {
        type: 'object',
        required: ['q'],
        properties: {
          q: { type: 'string', minLength: 1, maxLength: MAX_QUERY_CHARS },
          limit: limitParam(SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT),
          session_id: { type: 'string', minLength: 1, maxLength: 256 },
        },
      },
      response: {
        200: okSchema({ type: 'object', required: ['results'], properties: { results: { type: 'array', items: searchResultSchema } } }),
      },
    },
  }, async (request) => {
    const query = request.query as { q: string; limit?: string; session_id?: string };
    const limit = parseLimit(query.limit, SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT);
    if (queryWords(query.q).length > MAX_QUERY_WORDS) throw badRequest(`q must have at most ${MAX_QUERY_WORDS} distinct words`);
    const results = await ctx.memory.search(query.q, { limit, sessionId: query.session_id });
    return ok({ results });
  });

  app.post('/api/v1/memory/turns/:id/pin', {
    schema: {
      summary: 'Pin or unpin a turn',
      description: 'Pinned turns survive session cleanup and age-based retention. The body may be omitted (pins).',
      tags: ['memory'],
      params: turnIdParams,
      body: {
        type: 'object',
        properties: { pinned: { type: 'boolean', default: true } },
        additionalProperties: false,
      },
      response: {
        200: okSchema({
          type: 'object',
          required: ['id', 'pinned'],
          properties: { id: { type: 'string' }, pinned: { type: 'boolean' } },
        }),
      },
    },
    // The spec's body is optional: an absent or empty body means "pin". Anything present must be an
    // object whose `pinned` is a real boolean, checked here before schema validation sees it, so no
    // validator setting (type coercion) can turn "false" or 0 into a boolean, and the error names
    // the offending field.
    preValidation: async (request: FastifyRequest) => {
      const body = request.body as unknown;
      if (body === undefined || body === null) {
        request.body = {};
        return;
      }
      if (typeof body !== 'object' || Array.isArray(body)) throw badRequest('body must be a JSON object');
      const { pinned, ...rest } = body as Record<string, unknown>;
      if (pinned !== undefined && typeof pinned !== 'boolean') throw badRequest('field "pinned" must be a boolean');
      const unknown = Object.keys(rest)[0];
      if (unknown !== undefined) throw badRequest(`field "${unknown}" is not allowed`);
    },
  }, async (request) => {
    const { id } = request.params as { id: string };
    const pinned = (request.body as { pinned?: boolean }).pinned ?? true;
    const turn = await ctx.memory.setPinned(id, pinned);
    if (!turn) throw notFound('Turn not found');
    await ctx.audit.emit({
      event_type: 'web.memory', category: 'web', result: 'allow', subsystem: 'memory',
      action: pinned ? 'pin' : 'unpin', source: request.clientAddress || null,
      session_id: turn.session_id, detail: { turn_id: turn.id, pinned },
    });
    return ok({ id: turn.id, pinned: turn.pinned });
  });

  app.delete('/api/v1/memory/turns/:id', {
    schema: {
      summary: 'Delete a turn permanently',
      description: 'Removes the turn and its full-text index entry in one transaction, and erases its text from the run that stored it (response and event log); the text does not remain in the database files.',
      tags: ['memory'],
      params: turnIdParams,
      response: {
        200: okSchema({
          type: 'object',
          required: ['id', 'deleted'],
          properties: { id: { type: 'string' }, deleted: { type: 'boolean', const: true } },
        }),
      },
    },
  }, async (request) => {
    const { id } = request.params as { id: string };
    const turn = await ctx.memory.delete(id);
    if (!turn) throw notFound('Turn not found');
    await ctx.audit.emit({
      event_type: 'web.memory', category: 'web', result: 'allow', subsystem: 'memory',
      action: 'delete', source: request.clientAddress || null,
      session_id: turn.session_id, detail: { turn_id: id },
    });
    return ok({ id, deleted: true });
  });
}
