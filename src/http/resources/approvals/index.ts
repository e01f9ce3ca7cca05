import { actorOf } from '../../actor.js';
import { errorSchema, ok, okSchema } from '../../../listener/envelope.js';
import { ApiError } from '../../../listener/errors.js';
import { limitParam, parseLimit } from '../../query.js';
import type { ResourcePlugin } from '../context.js';
import { idParams } from '../schemas.js';
import { approvalListSchema, approvalSchema, decisionBodySchema } from './schemas.js';

const LIST_DEFAULT = 50;
const LIST_MAX = 200;

/** Approvals: requests that wait for an operator's decision (issue 16). */
export const approvalsPlugin: ResourcePlugin<'approvals'> = async (app, ctx) => {
  app.get('/approvals', {
    schema: {
      summary: 'Approvals, newest first',
      operationId: 'listApprovals',
      description: 'state=pending (the default) lists those waiting for a decision; state=all includes decided ones.',
      tags: ['approvals'],
      querystring: {
        type: 'object',
        properties: { state: { type: 'string', enum: ['pending', 'all'] }, limit: limitParam(LIST_DEFAULT, LIST_MAX) },
      },
      response: { 200: okSchema(approvalListSchema) },
    },
  }, async (request) => {
    const { query } = request;
    const limit = parseLimit(query.limit, LIST_DEFAULT, LIST_MAX);
    return ok({ approvals: await ctx.approvals.list({ pendingOnly: query.state !== 'all', limit }) });
  });

  app.get('/approvals/:id', {
    schema: { summary: 'One approval', operationId: 'getApproval', tags: ['approvals'], params: idParams, response: { 200: okSchema(approvalSchema), 404: errorSchema } },
  }, async (request) => {
    const approval = await ctx.approvals.get(request.params.id);
    if (!approval) throw new ApiError('AGENTD_APPROVAL_NOT_FOUND');
    return ok(approval);
  });

  app.post('/approvals/:id', {
    schema: {
      summary: 'Decide an approval',
      operationId: 'decideApproval',
      description:
        'allow_once lets this one request through; allow_session also covers what the approval\'s scope and grant_stage name ' +
        '(the same origin refused at the same stage, or the same tool) for the rest of the API session, or for the rest of the ' +
        'run on a channel session (grant_run_id); where session_grant_allowed is false (an explicit REST deny rule, named in ' +
        'grant_rule) allow_session is 409 AGENTD_SESSION_GRANT_REFUSED; deny refuses it. confirm must be exactly approve:<id> ' +
        '(allow) or deny:<id>, else 409 ' +
        'AGENTD_CONFIRM_MISMATCH; an approval already decided (also by timeout, restart or its run\'s end) is 409 ' +
        'AGENTD_APPROVAL_DECIDED. Every decision is audited as approval.decision with who decided.',
      tags: ['approvals'],
      params: idParams,
      body: decisionBodySchema,
      response: { 200: okSchema(approvalSchema), 404: errorSchema, 409: errorSchema, 507: errorSchema },
    },
  }, async (request) => {
    const { body } = request;
    return ok(await ctx.approvals.decide({
      id: request.params.id, decision: body.decision, confirm: body.confirm, decidedBy: actorOf(request), requestId: request.id,
    }));
  });
};
