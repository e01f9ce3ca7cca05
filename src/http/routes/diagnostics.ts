import type { FastifyInstance } from 'fastify';
import type { DiagnosticsReport } from '../../diagnostics/index.js';
import { ok, okSchema } from '../envelope.js';

const statusSchema = { type: 'string', enum: ['ok', 'warn', 'error'] };

export function diagnosticsRoutes(app: FastifyInstance, ctx: { diagnostics: () => Promise<DiagnosticsReport> }): void {
  app.get('/api/v1/diagnostics', {
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
