import type { FastifyInstance } from 'fastify';
import { ok, okSchema } from '../envelope.js';
import type { OpenApiCollector } from '../openapi.js';

/** What the status endpoint reports; each part is filled by the subsystem that owns it. */
export interface StatusSnapshot {
  version: string;
  uptime_s: number;
  providers_available: string[];
  default_provider: string;
  tool_count: number;
  session_count: number;
  memory: { present: boolean; turn_count: number };
}

export interface SystemRoutesContext {
  version: string;
  status: () => Promise<StatusSnapshot>;
  openapi: OpenApiCollector;
}

export function systemRoutes(app: FastifyInstance, ctx: SystemRoutesContext): void {
  // The health body never changes while the process lives: serialise it once.
  const healthBody = JSON.stringify(ok({ status: 'healthy', version: ctx.version }));
  app.get('/api/v1/health', {
    schema: {
      summary: 'Liveness',
      tags: ['system'],
      response: {
        200: okSchema({
          type: 'object',
          properties: { status: { type: 'string', const: 'healthy' }, version: { type: 'string' } },
        }),
      },
    },
  }, (_request, reply) => {
    reply.type('application/json; charset=utf-8').send(healthBody);
  });

  app.get('/api/v1/status', {
    schema: {
      summary: 'Runtime status',
      tags: ['system'],
      response: {
        200: okSchema({
          type: 'object',
          properties: {
            version: { type: 'string' },
            uptime_s: { type: 'number' },
            providers_available: { type: 'array', items: { type: 'string' } },
            default_provider: { type: 'string' },
            tool_count: { type: 'integer' },
            session_count: { type: 'integer' },
            memory: {
              type: 'object',
              properties: { present: { type: 'boolean' }, turn_count: { type: 'integer' } },
            },
          },
        }),
      },
    },
  }, async () => ok(await ctx.status()));

  app.get('/api/v1/openapi.json', {
    schema: { summary: 'This OpenAPI 3.1 document', tags: ['system'] },
  }, async () => ctx.openapi.document());
}
