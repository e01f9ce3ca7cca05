import { actorOf } from '../actor.js';
import { ok, okSchema } from '../envelope.js';
import { invalidField } from '../errors.js';
import { idParams } from './agent-schemas.js';
import type { RouteContext, RouteInstance } from './context.js';
import { confirmField, controlResultSchema, jobBodySchema, jobSchema } from './scheduler-schemas.js';

/** Scheduled jobs (spec: Scheduler endpoints). */
export function schedulerRoutes(app: RouteInstance, ctx: Pick<RouteContext, 'scheduler' | 'controls'>): void {
  app.get('/scheduler/jobs', {
    schema: {
      summary: 'Scheduled jobs in full detail',
      description: 'Oldest first, with the state of each job\'s fires (last run, skips, missed occurrences).',
      tags: ['scheduler'],
      response: {
        200: okSchema({ type: 'object', required: ['jobs'], properties: { jobs: { type: 'array', items: jobSchema } } }),
      },
    },
  }, async () => ok({ jobs: await ctx.scheduler.list() }));

  app.post('/scheduler/jobs', {
    schema: {
      summary: 'Create a scheduled job',
      description:
        'Each fire is a run on the job\'s own session job:<id> (GET /api/v1/runs?session_id=job:<id>). An invalid schedule, ' +
        'time zone or active_hours is a 400 naming the field; past the job limit a 409.',
      tags: ['scheduler'],
      body: jobBodySchema,
      response: { 201: okSchema(jobSchema) },
    },
  }, async (request, reply) => {
    const job = await ctx.scheduler.create(request.body, { source: request.clientAddress || null, actor: actorOf(request), requestId: request.id });
    return reply.code(201).send(ok(job));
  });

  app.delete('/scheduler/jobs/:id', {
    schema: {
      summary: 'Remove a scheduled job (control scheduler.remove_job)',
      description:
        'The same checks and audit (web.control) as POST /api/v1/controls/scheduler.remove_job: confirm must be ' +
        'remove-job:<job id>, in the JSON body or the confirm query parameter; otherwise 409 and nothing changes.',
      tags: ['scheduler'],
      params: idParams,
      querystring: { type: 'object', properties: { confirm: confirmField } },
      body: { type: 'object', additionalProperties: false, properties: { confirm: confirmField } },
      response: { 200: okSchema(controlResultSchema) },
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
}
