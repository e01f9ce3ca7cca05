import { errorSchema, ok, okSchema } from '../../../listener/envelope.js';
import { ApiError } from '../../../listener/errors.js';
import { limitParam, parseLimit } from '../../query.js';
import { auditBusy } from '../busy-audit.js';
import type { ResourcePlugin } from '../context.js';
import { idParams, MAX_ID_CHARS, turnBodySchema } from '../schemas.js';
import { eventRoutes } from './events.js';
import { runSchema } from './schemas.js';

const LIST_DEFAULT = 20;
const LIST_MAX = 100;

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
      summary: 'Recent runs of a session',
      operationId: 'listRuns',
      description: 'Newest first.',
      tags: ['runs'],
      querystring: {
        type: 'object',
        required: ['session_id'],
        properties: {
          session_id: { type: 'string', minLength: 1, maxLength: MAX_ID_CHARS },
          limit: limitParam(LIST_DEFAULT, LIST_MAX),
        },
      },
      response: {
        200: okSchema({ type: 'object', required: ['runs'], properties: { runs: { type: 'array', items: runSchema } } }),
      },
    },
  }, async (request) => {
    const { query } = request;
    const limit = parseLimit(query.limit, LIST_DEFAULT, LIST_MAX);
    return ok({ runs: await agent.listRuns(query.session_id, limit) });
  });

  app.get('/runs/:id', {
    schema: {
      summary: 'One run',
      operationId: 'getRun',
      description: 'Its current state; a finished run returns its terminal state at once.',
      tags: ['runs'],
      params: idParams,
      response: { 200: okSchema(runSchema), 404: errorSchema },
    },
  }, async (request) => {
    const run = await agent.getRun(request.params.id);
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
