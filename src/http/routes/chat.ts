import type { FastifyInstance } from 'fastify';
import type { AgentRuntime } from '../../agent/runtime.js';
import type { AuditSink } from '../../audit/types.js';
import { ok, okSchema } from '../envelope.js';
import { auditBusy, bodyGuard, toApiError } from './agent-errors.js';
import { costSchema, turnBodySchema } from './agent-schemas.js';

export interface ChatRoutesContext {
  agent: AgentRuntime;
  audit: AuditSink;
}

/** POST /chat: one synchronous turn with the agent. */
export function chatRoutes(app: FastifyInstance, ctx: ChatRoutesContext): void {
  app.post('/api/v1/chat', {
    schema: {
      summary: 'Chat with the agent (blocks until it answers)',
      description:
        'Creates a session when session_id is omitted. The chat holds the session\'s single in-flight slot: a run or ' +
        'chat already in flight on it is a 409, and so is a session whose spend has reached max_spend_usd. A failed ' +
        'provider call is a 502 naming the cause.',
      tags: ['agent'],
      body: turnBodySchema,
      response: {
        200: okSchema({
          type: 'object',
          required: ['response', 'session_id', 'usage'],
          properties: {
            response: { type: 'string', description: 'the answer, passed through the secret censor' },
            session_id: { type: 'string' },
            usage: costSchema,
          },
        }),
      },
    },
    preValidation: bodyGuard(['message', 'session_id', 'provider']),
  }, async (request) => {
    const body = request.body as { message: string; session_id?: string; provider?: string };
    try {
      return ok(await ctx.agent.chat({ message: body.message, sessionId: body.session_id, provider: body.provider }));
    } catch (err) {
      await auditBusy(ctx.audit, err, request.clientAddress, body.session_id ?? null, 'chat');
      throw toApiError(err);
    }
  });
}
