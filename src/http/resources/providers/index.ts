import { ok, okSchema } from '../../../listener/envelope.js';
import type { ResourcePlugin } from '../context.js';

/** GET /providers: the providers the agent can use. */
export const providersPlugin: ResourcePlugin<'providers'> = async (app, ctx) => {
  app.get('/providers', {
    schema: {
      summary: 'Registered providers',
      operationId: 'listProviders',
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
};
