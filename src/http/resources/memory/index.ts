import { MAX_QUERY_WORDS, queryWords } from '../../../storage/ports/turn-query.js';
import { actorOf } from '../../actor.js';
import { errorSchema, ok, okSchema } from '../../../listener/envelope.js';
import { ApiError, invalidField } from '../../../listener/errors.js';
import { limitParam, parseLimit } from '../../query.js';
import type { ResourcePlugin } from '../context.js';
import { turnSchema } from '../schemas.js';

const SEARCH_DEFAULT_LIMIT = 10;
const SEARCH_MAX_LIMIT = 100;
const HISTORY_DEFAULT_LIMIT = 50;
const HISTORY_MAX_LIMIT = 500;
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

/** Search, pin and delete of stored conversation turns (docs/resources.md#turns-and-memory). */
export const memoryPlugin: ResourcePlugin<'memory' | 'audit'> = async (app, ctx) => {
  const turnNotFound = () => new ApiError('AGENTD_TURN_NOT_FOUND');

  app.get('/memory/search', {
    schema: {
      summary: 'Full-text search of stored turns',
      operationId: 'searchMemory',
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
    const { query } = request;
    const limit = parseLimit(query.limit, SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT);
    if (queryWords(query.q).length > MAX_QUERY_WORDS) throw invalidField(`q must have at most ${MAX_QUERY_WORDS} distinct words`);
    const results = await ctx.memory.search(query.q, { limit, sessionId: query.session_id });
    return ok({ results });
  });

  app.get('/memory/history', {
    schema: {
      summary: 'Turns of any session',
      operationId: 'getMemoryHistory',
      description:
        'The most recent turns stored under session_id, oldest first: an API session, ended or not, or a channel ' +
        'session (job:<id>, webhook:<sender>, discord:<id>). A session with no stored turn answers an empty list.',
      tags: ['memory'],
      querystring: {
        type: 'object',
        required: ['session_id'],
        properties: { session_id: { type: 'string', minLength: 1, maxLength: 256 }, limit: limitParam(HISTORY_DEFAULT_LIMIT, HISTORY_MAX_LIMIT) },
      },
      response: {
        200: okSchema({ type: 'object', required: ['turns'], properties: { turns: { type: 'array', items: turnSchema } } }),
      },
    },
  }, async (request) => {
    const limit = parseLimit(request.query.limit, HISTORY_DEFAULT_LIMIT, HISTORY_MAX_LIMIT);
    return ok({ turns: await ctx.memory.history(request.query.session_id, limit) });
  });

  // docs/decisions.md#an-empty-pin-body-pins: the body is optional and an absent or empty one means "pin" (the schema's
  // default); validation never coerces, so "false" or 0 is a 400 naming `pinned`.
  app.post('/memory/turns/:id/pin', {
    schema: {
      summary: 'Pin or unpin a turn',
      operationId: 'pinTurn',
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
        404: errorSchema,
        507: errorSchema,
      },
    },
  }, async (request) => {
    const { id } = request.params;
    const { pinned } = request.body;
    const turn = await ctx.memory.setPinned(id, pinned);
    if (!turn) throw turnNotFound();
    await ctx.audit.emit({
      event_type: 'web.memory', category: 'web', result: 'allow', subsystem: 'memory',
      action: pinned ? 'pin' : 'unpin', source: request.clientAddress || null, actor: actorOf(request),
      session_id: turn.session_id, detail: { turn_id: turn.id, pinned }, request_id: request.id,
    });
    return ok({ id: turn.id, pinned: turn.pinned });
  });

  app.delete('/memory/turns/:id', {
    schema: {
      summary: 'Delete a turn permanently',
      operationId: 'deleteTurn',
      description: 'Removes the turn and its full-text index entry in one transaction, and erases its text from the run that stored it (response and event log); the text does not remain in the database files.',
      tags: ['memory'],
      params: turnIdParams,
      response: {
        200: okSchema({
          type: 'object',
          required: ['id', 'deleted'],
          properties: { id: { type: 'string' }, deleted: { type: 'boolean', const: true } },
        }),
        404: errorSchema,
        507: errorSchema,
      },
    },
  }, async (request) => {
    const { id } = request.params;
    const turn = await ctx.memory.delete(id);
    if (!turn) throw turnNotFound();
    await ctx.audit.emit({
      event_type: 'web.memory', category: 'web', result: 'allow', subsystem: 'memory',
      action: 'delete', source: request.clientAddress || null, actor: actorOf(request),
      session_id: turn.session_id, detail: { turn_id: id }, request_id: request.id,
    });
    return ok({ id, deleted: true });
  });
};
