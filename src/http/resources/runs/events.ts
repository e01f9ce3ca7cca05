import type { FastifyRequest } from 'fastify';
import { errorSchema } from '../../../listener/envelope.js';
import { ApiError, invalidField } from '../../../listener/errors.js';
import type { ContextSlice, RouteInstance } from '../context.js';
import { idParams } from '../schemas.js';
import { runEventSchema } from './schemas.js';
import { SseViewer } from './sse-viewer.js';

/** Highest id a client may name; anything larger is not one of ours. */
const MAX_EVENT_ID = 1_000_000_000;

/** What `include` may name: `deltas`, the run's live text (docs/api.md#run-event-stream). */
const INCLUDE_VALUES = new Set(['deltas']);

/** Whether the viewer asked for the live text; any other value is refused, so a typo is not silently ignored. */
function includesDeltas(raw: string | undefined): boolean {
  if (raw === undefined) return false;
  const values = raw.split(',').map((value) => value.trim());
  if (values.some((value) => !INCLUDE_VALUES.has(value))) throw invalidField('include must be "deltas"');
  return values.length > 0;
}

function lastEventId(request: FastifyRequest, fromQuery: string | undefined): number {
  const header = request.headers['last-event-id'];
  const raw = typeof header === 'string' && header.trim() !== '' ? header : fromQuery;
  if (raw === undefined || raw.trim() === '') return 0;
  const text = raw.trim();
  if (!/^\d{1,10}$/.test(text) || Number(text) > MAX_EVENT_ID) throw invalidField('Last-Event-ID must be a non-negative integer');
  return Number(text);
}

/**
 * GET /runs/{id}/events: the run's events as Server-Sent Events, framed as docs/api.md#run-event-stream says
 * (`id`, `event`, one-line `data`; `retry: 3000` first; `: ping` keep-alives). The stored log is
 * replayed after Last-Event-ID (header, or the `last_event_id` query parameter for clients that
 * cannot set headers); a live run then streams until its terminal event, a finished one closes.
 * A reconnect after the terminal event is answered 204, which makes EventSource stop.
 */
export function eventRoutes(app: RouteInstance, ctx: ContextSlice<'agent' | 'openapi' | 'pingIntervalMs' | 'metrics'>): void {
  ctx.openapi.component('RunEvent', runEventSchema);
  const open = new Set<SseViewer>();
  // An open stream is never idle, so closing the server would wait for it: end them all first
  // (one still behind is cut off). Runs in flight have already ended by then, their last events
  // handed to the viewers (the app closes the agent runtime first).
  app.addHook('preClose', async () => {
    for (const viewer of [...open]) viewer.close();
  });

  app.get('/runs/:id/events', {
    schema: {
      summary: 'Stream a run\'s events (text/event-stream)',
      operationId: 'streamRunEvents',
      description:
        'Events: run.start, tool.request / tool.result pairs (approval.request / approval.result around a call that waits for an operator), then one of run.complete, run.error, run.cancelled. ' +
        'With include=deltas also run.text and run.delta (live only, censored, no id) as the answer is written. ' +
        'Ids are 1, 2, 3 … per run. Send Last-Event-ID (or ?last_event_id=) to resume after an id; 204 when that id ' +
        'is the terminal event of a finished run. Each event is a RunEvent (components.schemas).',
      tags: ['runs'],
      params: idParams,
      headers: {
        type: 'object',
        properties: { 'last-event-id': { type: 'string', description: 'resume after this event id (what EventSource sends on a reconnect)' } },
      },
      querystring: {
        type: 'object',
        properties: {
          last_event_id: { type: 'string', description: 'fallback for the Last-Event-ID header' },
          include: {
            type: 'string',
            description: '`deltas`: also stream the answer as it is written — live-only run.delta events (no id) and, for a viewer joining mid-answer, one run.text with the text so far; any other value is refused (400)',
          },
        },
      },
      response: {
        200: {
          description: 'the event stream: `retry: 3000`, then events (id, event, data: one line of JSON; see RunEvent) and `: ping` keep-alives',
          // The schema is that of one event (its SSE fields id, event and data), as generators read
          // a text/event-stream schema; the stream is a sequence of them.
          content: { 'text/event-stream': { schema: runEventSchema } },
        },
        204: { description: 'the run has finished and the client has seen its terminal event', type: 'null' },
        404: errorSchema,
      },
    },
  }, async (request, reply) => {
    const { id } = request.params;
    const afterId = lastEventId(request, request.query.last_event_id);
    const deltas = includesDeltas(request.query.include);
    const viewer = new SseViewer(reply.raw, id, { pingIntervalMs: ctx.pingIntervalMs, deltas });
    const watch = await ctx.agent.watchRun(id, afterId, viewer);
    if (!watch.found) throw new ApiError('AGENTD_RUN_NOT_FOUND');
    if (watch.finished && watch.replay.length === 0) return reply.code(204).send(null);

    // From here the response is written by hand; nothing below may throw into Fastify.
    reply.hijack();
    open.add(viewer);
    ctx.metrics.sseViewerOpened();
    // Only `stop` is kept for later: the replay's events (a copy of the log read from the store)
    // must not live as long as the connection.
    const { stop } = watch;
    viewer.whenClosed(() => {
      stop();
      open.delete(viewer);
      ctx.metrics.sseViewerClosed();
    });
    viewer.start(watch.replay, watch.finished, watch.text);
  });
}
