import { errorSchema, ok, okSchema } from '../../../listener/envelope.js';
import { hourlySinceParam, limitParam, parseHourlySince, parseLimit, parseOffset } from '../../query.js';
import type { ResourcePlugin } from '../context.js';
import { spendHourlySchema } from '../schemas.js';

const DEFAULT_LIMIT = 10;
const MAX_LIMIT = 100;

/** GET /costs/summary: spend and tokens, in total and per session (most spend first); GET /costs/hourly: spend per hour and model. */
export const costsPlugin: ResourcePlugin<'agent'> = async (app, ctx) => {
  app.get('/costs/summary', {
    schema: {
      summary: 'Cost summary',
      operationId: 'getCostSummary',
      description: 'Totals over every stored provider call, the sessions that spent most (paged by offset; totals.sessions counts them all), and the per-session cap (0 = none).',
      tags: ['costs'],
      querystring: {
        type: 'object',
        properties: { limit: limitParam(DEFAULT_LIMIT, MAX_LIMIT), offset: { type: 'string', description: 'non-negative integer, default 0' } },
      },
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
    return ok(await ctx.agent.costSummary(limit, parseOffset(request.query.offset)));
  });

  app.get('/costs/hourly', {
    schema: {
      summary: 'Spend per hour and model',
      operationId: 'getHourlySpend',
      description: 'Provider calls since `since` (default: the last 24 hours), summed per UTC hour, provider and model, oldest hour first. Hours without calls are left out.',
      tags: ['costs'],
      querystring: { type: 'object', properties: { since: hourlySinceParam } },
      response: {
        200: okSchema(spendHourlySchema),
        400: errorSchema,
      },
    },
  }, async (request) => {
    const since = parseHourlySince(request.query.since);
    return ok({ since, hours: await ctx.agent.spendByHour(since) });
  });
};
