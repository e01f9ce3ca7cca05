import { ok, okSchema } from '../envelope.js';
import type { RouteContext, RouteInstance } from './context.js';

/** GET /providers and GET /tools: what the agent can use. */
export function catalogRoutes(app: RouteInstance, ctx: Pick<RouteContext, 'providers' | 'tools'>): void {
  app.get('/providers', {
    schema: {
      summary: 'Registered providers',
      description: 'Every provider with its model, whether it can be used now, and whether it is the default.',
      tags: ['agent'],
      response: {
        200: okSchema({
          type: 'object',
          required: ['providers'],
          properties: {
            providers: {
              type: 'array',
              items: {
                type: 'object',
                required: ['name', 'model', 'available', 'is_default'],
                properties: {
                  name: { type: 'string' },
                  model: { type: 'string' },
                  available: { type: 'boolean' },
                  is_default: { type: 'boolean' },
                },
              },
            },
          },
        }),
      },
    },
  }, async () => ok({ providers: ctx.providers.list() }));

  // The tool list never changes while the process lives: serialise it once.
  let toolsBody: string | null = null;
  app.get('/tools', {
    schema: {
      summary: 'Registered tools',
      description: 'Every tool the agent may call, with its description and the JSON Schema of its arguments.',
      tags: ['agent'],
      response: {
        200: okSchema({
          type: 'object',
          required: ['tools'],
          properties: {
            tools: {
              type: 'array',
              items: {
                type: 'object',
                required: ['name', 'description', 'schema'],
                properties: {
                  name: { type: 'string' },
                  description: { type: 'string' },
                  schema: { type: 'object', additionalProperties: true, description: 'JSON Schema of the arguments' },
                },
              },
            },
          },
        }),
      },
    },
  }, (_request, reply) => {
    toolsBody ??= JSON.stringify(ok({ tools: ctx.tools.list() }));
    reply.type('application/json; charset=utf-8').send(toolsBody);
  });
}
