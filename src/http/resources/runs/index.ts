import { errorSchema, ok, okSchema } from '../../../listener/envelope.js';
import { ApiError } from '../../../listener/errors.js';
import { hourlySinceParam, parseHourlySince, parseLimit } from '../../query.js';
import { auditBusy } from '../busy-audit.js';
import type { ResourcePlugin } from '../context.js';
import { idParams, runSchema, runsHourlySchema, turnBodySchema } from '../schemas.js';
import { eventRoutes } from './events.js';
import { parseRunListQuery, refuseCrossSessionParams, runListQuerySchema, runListResponseSchema, SESSION_LIST } from './list.js';
import { runWithTraceSchema } from './schemas.js';

/** Background runs: status values and the cancel endpoint (docs/resources.md#runs). */
export const runsPlugin: ResourcePlugin<'agent' | 'audit' | 'openapi' | 'pingIntervalMs' | 'metrics'> = async (app, ctx) => {
  const { agent } = ctx;

  app.post('/runs', {
    schema: {
      summary: 'Start a background run',
      operationId: 'startRun',
      description:
        'Answers 202 with the pending run; the agent starts in the background and its progress is streamed at ' +
        '/api/v1/runs/{id}/events. A session already running something is a 409 (audited as web.run deny).',
      tags: ['runs'],
      body: turnBodySchema,
      response: { 202: okSchema(runSchema), 404: errorSchema, 409: errorSchema, 507: errorSchema },
    },
  }, async (request, reply) => {
    const { body } = request;
    try {
      const run = await agent.startRun({ message: body.message, sessionId: body.session_id, provider: body.provider, requestId: request.id });
      return reply.code(202).send(ok(run));
    } catch (err) {
      await auditBusy(ctx.audit, err, request, body.session_id ?? null, 'run');
      throw err;
    }
  });

  app.get('/runs', {
    schema: {
      summary: 'Recent runs, of one session or of every session',
      operationId: 'listRuns',
      description:
        'Newest first (by creation). With session_id, that session\'s runs: { runs }. Without it, the runs of every ' +
        'session, paged by position and narrowed by status, source (api, job, webhook, discord), job_id and since ' +
        '(inclusive) / until (exclusive) on created_at: { runs, total, total_capped, has_more }. total counts matching ' +
        'runs up to 10,000; past that total_capped is true. A bad parameter is a 400 naming it.',
      tags: ['runs'],
      querystring: runListQuerySchema,
      response: { 200: okSchema(runListResponseSchema) },
    },
  }, async (request) => {
    const { query } = request;
    if (query.session_id === undefined) return ok(await agent.listAllRuns(parseRunListQuery(query)));
    refuseCrossSessionParams(query);
    const limit = parseLimit(query.limit, SESSION_LIST.fallback, SESSION_LIST.max);
    return ok({ runs: await agent.listRuns(query.session_id, limit) });
  });

  app.get('/runs/hourly', {
    schema: {
      summary: 'Runs per hour and status',
      operationId: 'getHourlyRuns',
      description: 'Runs created since `since` (default: the last 24 hours), counted per UTC hour and status as stored (a run waiting for an approval is running), oldest hour first. Hours without runs are left out.',
      tags: ['runs'],
      querystring: { type: 'object', properties: { since: hourlySinceParam } },
      response: {
        200: okSchema(runsHourlySchema),
        400: errorSchema,
      },
    },
  }, async (request) => {
    const since = parseHourlySince(request.query.since);
    return ok({ since, hours: await agent.runsByHour(since) });
  });

  app.get('/runs/:id', {
    schema: {
      summary: 'One run',
      operationId: 'getRun',
      description:
        'Its current state, a finished run\'s terminal state at once, with its trace: each tool call (arguments redacted, ' +
        'a redacted result preview of at most 2,000 characters, duration, error, the approval it waited for), every approval ' +
        'the run asked, and its timings (queued, started, first token, finished). A running run\'s trace is what has happened so far.',
      tags: ['runs'],
      params: idParams,
      response: { 200: okSchema(runWithTraceSchema), 404: errorSchema },
    },
  }, async (request) => {
    const run = await agent.getRunWithTrace(request.params.id);
    if (!run) throw new ApiError('AGENTD_RUN_NOT_FOUND');
    return ok(run);
  });

  app.post('/runs/:id/cancel', {
    schema: {
      summary: 'Cancel a run',
      operationId: 'cancelRun',
      description: 'The run ends at once as cancelled (terminal event run.cancelled). 409 when it has already finished.',
      tags: ['runs'],
      params: idParams,
      response: { 202: okSchema(runSchema), 404: errorSchema, 409: errorSchema },
    },
  }, async (request, reply) => {
    const run = await agent.cancelRun(request.params.id);
    return reply.code(202).send(ok(run));
  });

  eventRoutes(app, ctx);
};
