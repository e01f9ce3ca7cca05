import { actorOf } from '../../actor.js';
import { errorSchema, ok, okSchema } from '../../../listener/envelope.js';
import { ApiError } from '../../../listener/errors.js';
import { limitParam, parseLimit } from '../../query.js';
import type { ResourcePlugin } from '../context.js';
import { idParams, MAX_PROVIDER_CHARS, turnSchema } from '../schemas.js';
import { MAX_SESSION_NAME_CHARS, sessionSchema } from './schemas.js';

const LIST_DEFAULT = 20;
const LIST_MAX = 200;
const HISTORY_DEFAULT = 50;
const HISTORY_MAX = 500;

/** API sessions: in-memory conversation handles (docs/resources.md#api-sessions). */
export const sessionsPlugin: ResourcePlugin<'agent' | 'memory' | 'audit'> = async (app, ctx) => {
  const { agent } = ctx;
  const sessionNotFound = () => new ApiError('AGENTD_SESSION_NOT_FOUND');
  const sessionFound = async (id: string) => {
    const session = await agent.sessions.get(id);
    if (!session) throw sessionNotFound();
    return session;
  };

  app.post('/sessions', {
    schema: {
      summary: 'Create an API session',
      operationId: 'createSession',
      description: 'The body may be omitted. The provider defaults to the registry default; an unknown or unavailable provider is a 400.',
      tags: ['sessions'],
      body: {
        type: 'object',
        additionalProperties: false,
        properties: {
          name: { type: 'string', maxLength: MAX_SESSION_NAME_CHARS },
          provider: { type: 'string', minLength: 1, maxLength: MAX_PROVIDER_CHARS },
        },
      },
      response: { 201: okSchema(sessionSchema) },
    },
  }, async (request, reply) => {
    const { body } = request;
    const session = await agent.createSession({ name: body.name, provider: body.provider });
    return reply.code(201).send(ok(session));
  });

  app.get('/sessions', {
    schema: {
      summary: 'List API sessions',
      operationId: 'listSessions',
      description: 'Most recently used first.',
      tags: ['sessions'],
      querystring: { type: 'object', properties: { limit: limitParam(LIST_DEFAULT, LIST_MAX) } },
      response: {
        200: okSchema({ type: 'object', required: ['sessions'], properties: { sessions: { type: 'array', items: sessionSchema } } }),
      },
    },
  }, async (request) => {
    const limit = parseLimit(request.query.limit, LIST_DEFAULT, LIST_MAX);
    return ok({ sessions: await agent.sessions.list(limit) });
  });

  app.get('/sessions/:id', {
    schema: { summary: 'One API session', operationId: 'getSession', tags: ['sessions'], params: idParams, response: { 200: okSchema(sessionSchema), 404: errorSchema } },
  }, async (request) => ok(await sessionFound(request.params.id)));

  app.delete('/sessions/:id', {
    schema: {
      summary: 'End an API session',
      operationId: 'endSession',
      description: 'Cancels its run or chat in flight. Its stored turns stay in memory (search still finds them). Audited as web.session with who ended it.',
      tags: ['sessions'],
      params: idParams,
      response: {
        200: okSchema({
          type: 'object',
          required: ['id', 'ended'],
          properties: { id: { type: 'string' }, ended: { type: 'boolean', const: true } },
        }),
        404: errorSchema,
      },
    },
  }, async (request) => {
    const { id } = request.params;
    if (!(await agent.endSession(id))) throw sessionNotFound();
    // An operator action like the others: recorded with who ended the session.
    await ctx.audit.emit({
      event_type: 'web.session', category: 'web', result: 'allow', subsystem: 'agent', action: 'delete',
      actor: actorOf(request), source: request.clientAddress || null, session_id: id, detail: { session_id: id }, request_id: request.id,
    });
    return ok({ id, ended: true });
  });

  app.get('/sessions/:id/history', {
    schema: {
      summary: 'Turns of an API session',
      operationId: 'getSessionHistory',
      description: 'The most recent turns, oldest first.',
      tags: ['sessions'],
      params: idParams,
      querystring: { type: 'object', properties: { limit: limitParam(HISTORY_DEFAULT, HISTORY_MAX) } },
      response: {
        200: okSchema({ type: 'object', required: ['turns'], properties: { turns: { type: 'array', items: turnSchema } } }),
        404: errorSchema,
      },
    },
  }, async (request) => {
    const { id } = request.params;
    const limit = parseLimit(request.query.limit, HISTORY_DEFAULT, HISTORY_MAX);
    await sessionFound(id);
    return ok({ turns: await ctx.memory.history(id, limit) });
  });
};
