import { ok, okSchema } from '../../../listener/envelope.js';
import type { ResourcePlugin } from '../context.js';

/** GET /tools: the tools the agent can call. */
export const toolsPlugin: ResourcePlugin<'tools'> = async (app, ctx) => {
  // Serialised once per change of the registry (MCP servers add and withdraw tools).
  let toolsBody: { version: number; body: string } | null = null;
  app.get('/tools', {
    schema: {
      summary: 'Registered tools',
      operationId: 'listTools',
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
};
