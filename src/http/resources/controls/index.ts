import { actorOf } from '../../actor.js';
import { errorSchema, ok, okSchema } from '../../../listener/envelope.js';
import type { ResourcePlugin } from '../context.js';
import { confirmField, controlResultSchema } from '../schemas.js';
import { controlListSchema } from './schemas.js';

/** Operator controls, body `{target, confirm}` (docs/resources.md#operator-controls). */
export const controlsPlugin: ResourcePlugin<'controls'> = async (app, ctx) => {
  app.get('/controls', {
    schema: {
      summary: 'Operator controls with their targets',
      operationId: 'listControls',
      description: 'Each target says its state, whether the control applies to it now, and the exact confirm string it needs.',
      tags: ['controls'],
      response: { 200: okSchema(controlListSchema) },
    },
  }, async () => ok({ controls: await ctx.controls.list() }));

  app.post('/controls/:id', {
    schema: {
      summary: 'Execute an operator control',
      operationId: 'executeControl',
      description:
        'confirm must be exactly the target\'s confirm string (set-default:<provider>, pause-job:<job id>, resume-job:<job id>, ' +
        'remove-job:<job id>, accept-manifest:<server>:<first 16 hex of the pending digest>); otherwise 409 and nothing changes. Unknown control or target: 404; a target already in the ' +
        'state (or a provider that cannot be used): 409. Every execution, allowed or denied, is audited as web.control.',
      tags: ['controls'],
      params: { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 64 } } },
      body: {
        type: 'object',
        required: ['target'],
        additionalProperties: false,
        properties: { target: { type: 'string', minLength: 1, maxLength: 256 }, confirm: confirmField },
      },
      response: { 200: okSchema(controlResultSchema), 404: errorSchema, 409: errorSchema },
    },
  }, async (request) => {
    const { body } = request;
    return ok(await ctx.controls.execute({
      control: request.params.id, target: body.target, confirm: body.confirm, source: request.clientAddress || null, actor: actorOf(request), requestId: request.id,
    }));
  });
};
