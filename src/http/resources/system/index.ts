import { ok, okSchema } from '../../../listener/envelope.js';
import { ApiError } from '../../../listener/errors.js';
import type { Dependency, ResourcePlugin } from '../context.js';
import { statusSchema } from '../schemas.js';

const DEPENDENCY_NAMES: Record<Dependency, string> = { database: 'the database', redis: 'Redis' };

/** Liveness, readiness, status and this OpenAPI document. */
export const systemPlugin: ResourcePlugin<'version' | 'status' | 'openapi' | 'unready'> = async (app, ctx) => {
  // The health body never changes while the process lives: serialise it once.
  const healthBody = JSON.stringify(ok({ status: 'healthy', version: ctx.version }));
  app.get('/health', {
    // Answered before Fastify for an authenticated GET (http/fixed-answers.ts); HEAD and refusals come here.
    config: { fixedAnswer: healthBody },
    schema: {
      summary: 'Liveness',
      operationId: 'getHealth',
      tags: ['system'],
      response: {
        200: okSchema({
          type: 'object',
          required: ['status', 'version'],
          properties: { status: { type: 'string', const: 'healthy' }, version: { type: 'string' } },
        }),
      },
    },
  }, (_request, reply) => {
    reply.type('application/json; charset=utf-8').send(healthBody);
  });

  // For load balancers: a replica that cannot reach its database or Redis is taken out of rotation,
  // while /health and /healthz (liveness) keep answering so a supervisor does not restart it for
  // their sake. The pipeline lets it through when the shared rate limit cannot be read: answering
  // "Redis is down" with "Redis is down, retry" would not name what is down.
  app.get('/ready', {
    schema: {
      summary: 'Readiness without a key',
      operationId: 'probeReadiness',
      description: 'Needs no API key (a key that is offered must be right) and reveals nothing but readiness: 200 while the database and Redis (when configured) answer, 503 AGENTD_NOT_READY naming which of them is unreachable while one is not. Answered also while Redis is down, when other routes answer AGENTD_COORDINATION_UNAVAILABLE.',
      tags: ['system'],
      security: [],
      response: {
        200: okSchema({ type: 'object', required: ['status'], properties: { status: { type: 'string', const: 'ready' } } }),
      },
    },
  }, async () => {
    const down = await ctx.unready();
    if (down.length > 0) throw new ApiError('AGENTD_NOT_READY', `Not ready: ${down.map((name) => DEPENDENCY_NAMES[name]).join(' and ')} ${down.length > 1 ? 'are' : 'is'} unreachable`);
    return ok({ status: 'ready' });
  });

  app.get('/status', {
    schema: {
      summary: 'Runtime status',
      operationId: 'getStatus',
      tags: ['system'],
      response: {
        200: okSchema(statusSchema),
      },
    },
  }, async () => ok(await ctx.status()));

  app.get('/openapi.json', {
    schema: {
      summary: 'This OpenAPI 3.1 document',
      operationId: 'getOpenApiDocument',
      description: 'The document itself, without the envelope.',
      tags: ['system'],
      response: {
        200: {
          type: 'object',
          required: ['openapi', 'info', 'paths', 'components'],
          additionalProperties: true,
          properties: {
            openapi: { type: 'string' },
            info: {
              type: 'object',
              required: ['title', 'version', 'license'],
              properties: {
                title: { type: 'string' },
                version: { type: 'string' },
                license: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, identifier: { type: 'string' } } },
              },
            },
            paths: { type: 'object', additionalProperties: true },
            components: { type: 'object', additionalProperties: true },
          },
        },
      },
    },
  }, async () => ctx.openapi.document());
};
