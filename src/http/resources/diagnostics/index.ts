import { ok, okSchema } from '../../../listener/envelope.js';
import type { ResourcePlugin } from '../context.js';

const statusSchema = { type: 'string', enum: ['ok', 'warn', 'error'] };

export const diagnosticsPlugin: ResourcePlugin<'diagnostics'> = async (app, ctx) => {
  app.get('/diagnostics', {
    schema: {
      summary: 'Section-by-section health checks (same data as agentd doctor)',
      operationId: 'getDiagnostics',
      tags: ['system'],
      response: {
        200: okSchema({
          type: 'object',
          required: ['overall', 'counts', 'sections'],
          properties: {
            overall: statusSchema,
            counts: {
              type: 'object',
              required: ['ok', 'warn', 'error'],
              properties: { ok: { type: 'integer' }, warn: { type: 'integer' }, error: { type: 'integer' } },
            },
            sections: {
              type: 'array',
              items: {
                type: 'object',
                required: ['key', 'label', 'status', 'checks'],
                properties: {
                  key: { type: 'string' },
                  label: { type: 'string' },
                  status: statusSchema,
                  checks: {
                    type: 'array',
                    items: {
                      type: 'object',
                      required: ['name', 'status', 'summary'],
                      properties: {
                        name: { type: 'string' }, status: statusSchema, summary: { type: 'string' },
                        remediation: { type: 'string', description: 'what to do, on checks that warn or fail' },
                        detail: { type: 'string', description: 'longer text to review as is, e.g. a pending MCP manifest change as a per-tool diff' },
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
};
