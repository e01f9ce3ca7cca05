import { ok, okSchema } from '../envelope.js';
import type { RouteContext, RouteInstance } from './context.js';

const statusSchema = { type: 'string', enum: ['ok', 'warn', 'error'] };

export function diagnosticsRoutes(app: RouteInstance, ctx: Pick<RouteContext, 'diagnostics'>): void {
  app.get('/diagnostics', {
    schema: {
      summary: 'Section-by-section health checks (same data as agentd doctor)',
      tags: ['system'],
      response: {
        200: okSchema({
          type: 'object',
          properties: {
            overall: statusSchema,
            counts: { type: 'object', additionalProperties: { type: 'integer' } },
            sections: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  key: { type: 'string' },
                  label: { type: 'string' },
                  status: statusSchema,
                  checks: {
                    type: 'array',
                    items: {
                      type: 'object',
                      properties: {
                        name: { type: 'string' }, status: statusSchema, summary: { type: 'string' }, remediation: { type: 'string' },
                      },
                    },
                  },
                },
              },
            },
          },
        }),
      },
    },
  }, async () => ok(await ctx.diagnostics()));
}
