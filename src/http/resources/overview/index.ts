import { ok, okSchema } from '../../../listener/envelope.js';
import { parseHourlySince } from '../../query.js';
import type { ResourcePlugin } from '../context.js';
import type { Overview } from './overview.js';
import { overviewSchema } from './schemas.js';

/** The newest runs in flight and the newest errored runs the overview lists. */
const RUNS_LISTED = 5;
/** The soonest job fires it lists. */
const FIRES_LISTED = 3;
/** Pending approvals are counted up to this many (as many as one page of GET /approvals). */
const APPROVALS_COUNTED = 200;
/** Sessions at or over the spend cap are looked for among this many of the biggest spenders. */
const SESSIONS_SCANNED = 100;

/**
 * GET /overview: everything the console's Status panel shows, in one request, so a reload spends
 * one call of the API's rate budget (docs/resources.md#overview). Every read is bounded and indexed.
 */
export const overviewPlugin: ResourcePlugin<'status' | 'agent' | 'approvals' | 'scheduler'> = async (app, ctx) => {
  const { agent } = ctx;
  app.get('/overview', {
    schema: {
      summary: 'Everything the console\'s Status panel shows',
      operationId: 'getOverview',
      description:
        'The runtime status (as GET /api/v1/status), runs in flight and the newest errored runs, runs per hour and ' +
        'status and spend per hour of the last 24 hours (as the hourly endpoints answer them by default), the pending ' +
        'approvals, the next job fires and the per-session spend cap, in one answer.',
      tags: ['system'],
      response: { 200: okSchema(overviewSchema) },
    },
  }, async () => {
    const since = parseHourlySince(undefined);
    const page = { offset: 0 } as const;
    const [status, running, pending, errors, runsHourly, approvals, fires, spendHourly, cap] = await Promise.all([
      ctx.status(),
      agent.listAllRuns({ ...page, status: 'running', limit: RUNS_LISTED }),
      agent.listAllRuns({ ...page, status: 'pending', limit: 1 }),
      agent.listAllRuns({ ...page, status: 'error', limit: RUNS_LISTED }),
      agent.runsByHour(since),
      ctx.approvals.list({ pendingOnly: true, limit: APPROVALS_COUNTED }),
      ctx.scheduler.nextFires(FIRES_LISTED),
      agent.spendByHour(since),
      agent.spendCap(SESSIONS_SCANNED),
    ]);
    const overview: Overview = {
      status,
      runs: {
        running: running.total,
        pending: pending.total,
        in_flight: running.runs,
        recent_errors: errors.runs,
        hourly: { since, hours: runsHourly },
      },
      pending_approvals: approvals.length,
      next_fires: fires,
      spend: {
        hourly: { since, hours: spendHourly },
        ...cap,
      },
    };
    return ok(overview);
  });
};
