import { ok, okSchema } from '../../listener/envelope.js';
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

  // Serialised once per change of the registry (MCP servers add and withdraw tools).
  let toolsBody: { version: number; body: string } | null = null;
  app.get('/tools', {
    schema: {
      summary: 'Registered tools',
      description: 'Every tool the agent may call, with its description, the JSON Schema of its arguments and the MCP server that provides it.',
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
                required: ['name', 'description', 'schema', 'server'],
                properties: {
                  name: { type: 'string' },
                  description: { type: 'string' },
                  schema: { type: 'object', additionalProperties: true, description: 'JSON Schema of the arguments' },
                  server: { type: ['string', 'null'], description: 'The MCP server that provides the tool (`mcp.<server>.<tool>`); null for a built-in tool' },
                },
              },
            },
          },
        }),
      },
    },
  }, (_request, reply) => {
    if (toolsBody?.version !== ctx.tools.version) toolsBody = { version: ctx.tools.version, body: JSON.stringify(ok({ tools: ctx.tools.catalog() })) };
    reply.type('application/json; charset=utf-8').send(toolsBody.body);
  });
}
