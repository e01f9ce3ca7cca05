import { actorOf } from '../../actor.js';
import { errorSchema, ok, okSchema } from '../../../listener/envelope.js';
import { jobNotFound } from '../../../scheduler/index.js';
import { invalidField } from '../../../listener/errors.js';
import { limitParam, parseLimit, parseOffset } from '../../query.js';
import type { ResourcePlugin } from '../context.js';
import { confirmField, controlResultSchema, idParams } from '../schemas.js';
import { jobBodySchema, jobSchema, jobSummarySchema } from './schemas.js';

const LIST_DEFAULT = 50;
const LIST_MAX = 200;

/** Scheduled jobs (docs/resources.md#scheduled-jobs). */
export const schedulerPlugin: ResourcePlugin<'scheduler' | 'controls'> = async (app, ctx) => {
  app.get('/scheduler/jobs', {
    schema: {
      summary: 'Scheduled jobs, a page at a time',
      operationId: 'listJobs',
      description:
        'Oldest first, with the state of each job\'s fires (last run, skips, missed occurrences). Each job carries a preview ' +
        'of its task (task_preview, task_chars); GET /api/v1/scheduler/jobs/{id} has the whole task. total counts every job; ' +
        'has_more says whether jobs follow this page (ask again with offset + limit).',
      tags: ['scheduler'],
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: {
          limit: limitParam(LIST_DEFAULT, LIST_MAX),
          offset: { type: 'string', description: 'non-negative integer, default 0' },
        },
      },
      response: {
        200: okSchema({
          type: 'object',
          required: ['jobs', 'total', 'has_more'],
          properties: {
            jobs: { type: 'array', items: jobSummarySchema },
            total: { type: 'integer', description: 'every job' },
            has_more: { type: 'boolean' },
          },
        }),
      },
    },
  }, async (request) => {
    const limit = parseLimit(request.query.limit, LIST_DEFAULT, LIST_MAX);
    const offset = parseOffset(request.query.offset);
    return ok(await ctx.scheduler.list({ limit, offset }));
  });

  app.get('/scheduler/jobs/:id', {
    schema: {
      summary: 'One scheduled job, with its whole task',
      operationId: 'getJob',
      tags: ['scheduler'],
      params: idParams,
      response: { 200: okSchema(jobSchema), 404: errorSchema },
    },
  }, async (request) => {
    const job = await ctx.scheduler.get(request.params.id);
    if (!job) throw jobNotFound(request.params.id);
    return ok(job);
  });

  app.post('/scheduler/jobs', {
    schema: {
      summary: 'Create a scheduled job',
      operationId: 'createJob',
      description:
        'Each fire is a run on the job\'s own session job:<id> (GET /api/v1/runs?session_id=job:<id>). An invalid schedule, ' +
        'time zone or active_hours is a 400 naming the field; past the job limit a 409.',
      tags: ['scheduler'],
      body: jobBodySchema,
      response: { 201: okSchema(jobSchema), 409: errorSchema },
    },
  }, async (request, reply) => {
    const job = await ctx.scheduler.create(request.body, { source: request.clientAddress || null, actor: actorOf(request), requestId: request.id });
    return reply.code(201).send(ok(job));
  });

  app.delete('/scheduler/jobs/:id', {
    schema: {
      summary: 'Remove a scheduled job (control scheduler.remove_job)',
      operationId: 'removeJob',
      description:
        'The same checks and audit (web.control) as POST /api/v1/controls/scheduler.remove_job: confirm must be ' +
        'remove-job:<job id>, in the JSON body or the confirm query parameter; otherwise 409 and nothing changes.',
      tags: ['scheduler'],
      params: idParams,
      querystring: { type: 'object', properties: { confirm: confirmField } },
      body: { type: 'object', additionalProperties: false, properties: { confirm: confirmField } },
      response: { 200: okSchema(controlResultSchema), 404: errorSchema, 409: errorSchema },
    },
  }, async (request) => {
    const fromBody = request.body?.confirm;
    const fromQuery = request.query.confirm;
    if (fromBody !== undefined && fromQuery !== undefined && fromBody !== fromQuery) {
      throw invalidField('confirm is given in both the body and the query, with different values; give it once');
    }
    const result = await ctx.controls.execute({
      control: 'scheduler.remove_job', target: request.params.id, confirm: fromBody ?? fromQuery, source: request.clientAddress || null, actor: actorOf(request), requestId: request.id,
    });
    return ok(result);
  });
};
