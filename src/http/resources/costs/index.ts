import { ok, okSchema } from '../../../listener/envelope.js';
import { limitParam, parseLimit } from '../../query.js';
import type { ResourcePlugin } from '../context.js';

const DEFAULT_LIMIT = 10;
const MAX_LIMIT = 100;

/** GET /costs/summary: spend and tokens, in total and per session (most spend first). */
export const costsPlugin: ResourcePlugin<'agent'> = async (app, ctx) => {
  app.get('/costs/summary', {
    schema: {
      summary: 'Cost summary',
      operationId: 'getCostSummary',
      description: 'Totals over every stored provider call, the sessions that spent most, and the per-session cap (0 = none).',
      tags: ['costs'],
      querystring: { type: 'object', properties: { limit: limitParam(DEFAULT_LIMIT, MAX_LIMIT) } },
      response: {
        200: okSchema({
          type: 'object',
          required: ['totals', 'sessions', 'max_spend_usd'],
          properties: {
            totals: {
              type: 'object',
              required: ['calls', 'prompt_tokens', 'completion_tokens', 'cost_usd', 'sessions'],
              properties: {
                calls: { type: 'integer' },
                prompt_tokens: { type: 'integer' },
                completion_tokens: { type: 'integer' },
                cost_usd: { type: 'number' },
                sessions: { type: 'integer', description: 'sessions with at least one provider call' },
              },
            },
            sessions: {
              type: 'array',
              items: {
                type: 'object',
                required: ['session_id', 'calls', 'prompt_tokens', 'completion_tokens', 'cost_usd', 'last_call_at'],
                properties: {
                  session_id: { type: 'string' },
                  calls: { type: 'integer' },
                  prompt_tokens: { type: 'integer' },
                  completion_tokens: { type: 'integer' },
                  cost_usd: { type: 'number' },
                  last_call_at: { type: 'string' },
                },
              },
            },
            max_spend_usd: { type: 'number' },
          },
        }),
      },
    },
  }, async (request) => {
    const limit = parseLimit(request.query.limit, DEFAULT_LIMIT, MAX_LIMIT);
    return ok(await ctx.agent.costSummary(limit));
  });
};
