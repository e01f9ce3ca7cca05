import { errorSchema, ok, okSchema } from '../../../listener/envelope.js';
import { auditBusy } from '../busy-audit.js';
import type { ResourcePlugin } from '../context.js';
import { costSchema, turnBodySchema } from '../schemas.js';

/** POST /chat: one synchronous turn with the agent. */
export const chatPlugin: ResourcePlugin<'agent' | 'audit'> = async (app, ctx) => {
  app.post('/chat', {
    schema: {
      summary: 'Chat with the agent (blocks until it answers)',
      operationId: 'chat',
      description:
        'Creates a session when session_id is omitted. The chat holds the session\'s single in-flight slot: a run or ' +
        'chat already in flight on it is a 409, and so is a session whose spend has reached max_spend_usd. A failed ' +
        'provider call is a 502 naming the cause. A caller that disconnects before the answer withdraws the chat and the ' +
        'approvals it waits on (a run, unlike a chat, goes on without its caller).',
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
        404: errorSchema,
        409: errorSchema,
        507: errorSchema,
      },
    },
  }, async (request, reply) => {
    const { body } = request;
    // A caller that goes away before the answer withdraws the chat, and with it the approvals it
    // waits on: nobody is left to receive what an operator would allow.
    const gone = new AbortController();
    const onClose = (): void => {
      if (!reply.raw.writableEnded) gone.abort();
    };
    reply.raw.once('close', onClose);
    try {
      return ok(await ctx.agent.chat({
        message: body.message, sessionId: body.session_id, provider: body.provider, requestId: request.id, signal: gone.signal,
      }));
    } catch (err) {
      await auditBusy(ctx.audit, err, request, body.session_id ?? null, 'chat');
      throw err;
    } finally {
      reply.raw.off('close', onClose);
    }
  });
};
