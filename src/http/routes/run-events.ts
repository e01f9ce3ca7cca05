import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AgentRuntime } from '../../agent/runtime.js';
import { badRequest, notFound } from '../errors.js';
import { toApiError } from './agent-errors.js';
import { idParams } from './agent-schemas.js';
import { SseViewer, type SseViewerOptions } from './sse-viewer.js';

export interface RunEventRoutesContext extends SseViewerOptions {
  agent: AgentRuntime;
}

export interface RunEventStreams {
  /** Open event streams. */
  readonly size: number;
  /** Ends every open stream (shutdown). */
  closeAll(): void;
}

/** Highest id a client may name; anything larger is not one of ours. */
const MAX_EVENT_ID = 1_000_000_000;

function lastEventId(request: FastifyRequest): number {
  const header = request.headers['last-event-id'];
  const raw = typeof header === 'string' && header.trim() !== '' ? header : (request.query as { last_event_id?: string }).last_event_id;
  if (raw === undefined || raw.trim() === '') return 0;
  const text = raw.trim();
  if (!/^\d{1,10}$/.test(text) || Number(text) > MAX_EVENT_ID) throw badRequest('Last-Event-ID must be a non-negative integer');
  return Number(text);
}

/**
 * GET /runs/{id}/events: the run's events as Server-Sent Events, framed as decisions.md fixes
 * (`id`, `event`, one-line `data`; `retry: 3000` first; `: ping` keep-alives). The stored log is
 * replayed after Last-Event-ID (header, or the `last_event_id` query parameter for clients that
 * cannot set headers); a live run then streams until its terminal event, a finished one closes.
 * A reconnect after the terminal event is answered 204, which makes EventSource stop.
 */
export function runEventRoutes(app: FastifyInstance, ctx: RunEventRoutesContext): RunEventStreams {
  const open = new Set<SseViewer>();

  app.get('/api/v1/runs/:id/events', {
    schema: {
      summary: 'Stream a run\'s events (text/event-stream)',
      description:
        'Events: run.start, tool.request / tool.result pairs, then one of run.complete, run.error, run.cancelled. ' +
        'Ids are 1, 2, 3 … per run. Send Last-Event-ID (or ?last_event_id=) to resume after an id; 204 when that id ' +
        'is the terminal event of a finished run.',
      tags: ['runs'],
      params: idParams,
      querystring: {
        type: 'object',
        properties: { last_event_id: { type: 'string', description: 'fallback for the Last-Event-ID header' } },
      },
      response: {
        200: { description: 'event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } },
        204: { description: 'the run has finished and the client has seen its terminal event', type: 'null' },
      },
    },
  }, async (request, reply) => {
    const { id } = request.params as { id: string };
    const afterId = lastEventId(request);
    const viewer = new SseViewer(reply.raw, ctx);
    let watch;
    try {
      watch = await ctx.agent.watchRun(id, afterId, viewer);
    } catch (err) {
      throw toApiError(err);
    }
    if (!watch.found) throw notFound('Run not found');
    if (watch.finished && watch.replay.length === 0) return reply.code(204).send();

    // From here the response is written by hand; nothing below may throw into Fastify.
    reply.hijack();
    open.add(viewer);
    viewer.whenClosed(() => {
      watch.stop();
      open.delete(viewer);
    });
    viewer.start(watch.replay, watch.finished);
  });

  return {
    get size() {
      return open.size;
    },
    closeAll() {
      for (const viewer of [...open]) viewer.end();
    },
  };
}
