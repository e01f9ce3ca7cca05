/** What GET /overview answers (docs/resources.md#overview). */
import { runSchema, runsHourlySchema, spendHourlySchema, statusSchema } from '../schemas.js';

export const overviewSchema = {
  type: 'object',
  required: ['status', 'runs', 'pending_approvals', 'next_fires', 'spend'],
  properties: {
    status: statusSchema,
    runs: {
      type: 'object',
      required: ['running', 'pending', 'in_flight', 'recent_errors', 'hourly'],
      properties: {
        running: { type: 'integer', description: 'runs running (a run waiting for an approval is running), counted up to 10,000' },
        pending: { type: 'integer', description: 'runs accepted and not yet started, counted up to 10,000' },
        in_flight: { type: 'array', items: runSchema, description: 'the 5 newest running runs' },
        recent_errors: { type: 'array', items: runSchema, description: 'the 5 newest runs that ended in error' },
        hourly: runsHourlySchema,
      },
    },
    pending_approvals: { type: 'integer', description: 'approvals waiting for a decision, counted up to 200' },
    next_fires: {
      type: 'array',
      description: 'the 3 soonest fires of active jobs, soonest first',
      items: {
        type: 'object',
        required: ['job_id', 'name', 'next_run_at'],
        properties: { job_id: { type: 'string' }, name: { type: 'string' }, next_run_at: { type: 'string' } },
      },
    },
    spend: {
      type: 'object',
      required: ['hourly', 'max_spend_usd', 'sessions_at_cap'],
      properties: {
        hourly: spendHourlySchema,
        max_spend_usd: { type: 'number', description: 'the per-session cap; 0 = none' },
        sessions_at_cap: { type: 'integer', description: 'sessions that spent the cap or more, among the 100 that spent most; 0 without a cap' },
      },
    },
  },
} as const;
