import createFetchClient, { type Client, type FetchOptions } from 'openapi-fetch';
import { AgentdApiError, RunStreamInterruptedError } from './errors.js';
import type { components, paths } from './openapi-types.js';
import { readEventStream } from '../util/event-stream.js';

type Method = 'get' | 'post' | 'delete';

/** The paths that have an operation for `M`. */
export type PathsWith<M extends Method> = { [P in keyof paths]: paths[P] extends { [K in M]: object } ? P : never }[keyof paths];

type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;

/** The request options (`params`, `body`, `signal`, `headers`…), required when the operation has required parts. */
type Init<Op> = {} extends FetchOptions<Op> ? [init?: FetchOptions<Op>] : [init: FetchOptions<Op>];

type JsonBody<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type SuccessBody<Op> = Op extends { responses: infer R } ? JsonBody<R[keyof R & (200 | 201 | 202)]> : never;

/** What a call resolves to: the envelope's `data`, or the whole body where there is no envelope (/healthz, the OpenAPI document). */
export type Payload<P extends keyof paths, M extends Method> =
  SuccessBody<Operation<P, M>> extends infer B ? (B extends { status: 'ok'; data: infer D } ? D : B) : never;

type RunStreamSchema = components['schemas']['RunEvent'];
/** A live-only event of a run's stream (`includeDeltas`): `run.delta` or `run.text`, without an id. */
export type RunLiveEvent = Extract<RunStreamSchema, { event: 'run.delta' | 'run.text' }>;
/** An event of a run's log: it has an id, and a stream resumes after it. */
export type RunEvent = Exclude<RunStreamSchema, RunLiveEvent>;

export interface RunEventsOptions {
  /** Resume after this event id (Last-Event-ID). */
  lastEventId?: number;
  /**
   * Also receive the answer as it is written: `run.delta` pieces and, when joining mid-answer, one
   * `run.text` with the text so far (docs/api.md#run-event-stream). They are censored and live only.
   */
  includeDeltas?: boolean;
  signal?: AbortSignal;
}

const TERMINAL_EVENTS: ReadonlySet<string> = new Set(['run.complete', 'run.error', 'run.cancelled']);

const LIVE_EVENTS: ReadonlySet<string> = new Set(['run.delta', 'run.text']);

/** A line of an event stream longer than this is not agentd's (one event is one line of JSON). */
const MAX_EVENT_LINE_CHARS = 64 * 1024 * 1024;

export interface AgentdClientOptions {
  /** Where agentd (or the proxy in front of it) answers, such as `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** The operator API key, sent as `Authorization: Bearer`. */
  apiKey: string;
  /** A `fetch` of your own (a proxy agent, a test recorder); the global one by default. */
  fetch?: (request: Request) => Promise<Response>;
}

/**
 * A typed client of the agentd REST API: each call names a path of the OpenAPI document and gets
 * its request parts and its answer typed from it. A call resolves with the envelope's `data` and
 * rejects with `AgentdApiError` for any answer that is not a success.
 */
export class AgentdClient {
  private readonly api: Client<paths>;

  constructor(options: AgentdClientOptions) {
    if (!options.apiKey) throw new TypeError('apiKey is required: agentd refuses every request without one');
    this.api = createFetchClient<paths>({
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      headers: { authorization: `Bearer ${options.apiKey}` },
      fetch: options.fetch,
    });
  }

  get<P extends PathsWith<'get'>>(path: P, ...init: Init<Operation<P, 'get'>>): Promise<Payload<P, 'get'>> {
    return this.call('get', path, init[0]);
  }

  post<P extends PathsWith<'post'>>(path: P, ...init: Init<Operation<P, 'post'>>): Promise<Payload<P, 'post'>> {
    return this.call('post', path, init[0]);
  }

  delete<P extends PathsWith<'delete'>>(path: P, ...init: Init<Operation<P, 'delete'>>): Promise<Payload<P, 'delete'>> {
    return this.call('delete', path, init[0]);
  }

  /** The service's Prometheus metrics (`GET /metrics`), as the text a scraper reads. */
  async metrics(options: { signal?: AbortSignal } = {}): Promise<string> {
    const { data, error, response } = await this.api.GET('/metrics', { parseAs: 'text', signal: options.signal });
    if (!response.ok) throw AgentdApiError.of(response, error);
    return data ?? '';
  }

  /**
   * The events of a run, in order, ending with its terminal event (run.complete, run.error or
   * run.cancelled); a finished run replays its log. With `lastEventId` the stream resumes after
   * that event (Last-Event-ID), and ends at once when it was the terminal one. A stream cut off
   * before its terminal event throws `RunStreamInterruptedError`, which names the id to resume
   * from. Breaking out of the loop closes the connection.
   */
  runEvents(runId: string, options?: RunEventsOptions & { includeDeltas?: false }): AsyncGenerator<RunEvent>;
  runEvents(runId: string, options: RunEventsOptions & { includeDeltas: true }): AsyncGenerator<RunEvent | RunLiveEvent>;
  async *runEvents(runId: string, options: RunEventsOptions = {}): AsyncGenerator<RunEvent | RunLiveEvent> {
    const { data, error, response } = await this.api.GET('/api/v1/runs/{id}/events', {
      params: {
        path: { id: runId },
        header: options.lastEventId ? { 'last-event-id': String(options.lastEventId) } : {},
        query: options.includeDeltas ? { include: 'deltas' } : {},
      },
      headers: { accept: 'text/event-stream' },
      parseAs: 'stream',
      signal: options.signal,
    });
    if (!response.ok) throw AgentdApiError.of(response, error);
    if (response.status === 204 || !data) return;
    let lastEventId = options.lastEventId ?? 0;
    try {
      for await (const message of readEventStream(data, MAX_EVENT_LINE_CHARS)) {
        // Live events (run.delta, run.text) have no id of their own (SSE carries the last one
        // over): they are not what a resume names.
        const event = (LIVE_EVENTS.has(message.event)
          ? { event: message.event, data: JSON.parse(message.data) }
          : { id: Number(message.id), event: message.event, data: JSON.parse(message.data) }) as RunEvent | RunLiveEvent;
        if ('id' in event) lastEventId = event.id;
        yield event;
        if (TERMINAL_EVENTS.has(event.event)) return;
      }
    } catch (error) {
      // fetch reports a connection that dropped mid-body as a TypeError; anything else (bad data,
      // the caller's abort) is not something a resume would mend.
      if (!(error instanceof TypeError) || options.signal?.aborted) throw error;
      throw new RunStreamInterruptedError(runId, lastEventId, { cause: error });
    }
    throw new RunStreamInterruptedError(runId, lastEventId);
  }

  private async call<P, M extends Method>(method: M, path: P, init: object | undefined): Promise<never> {
    // The public signatures carry the types; openapi-fetch's own generics cannot follow a path chosen by the caller.
    const { data, error, response } = await this.api.request(method, path as never, init as never);
    if (!response.ok) throw AgentdApiError.of(response, error);
    const body: unknown = data;
    return (isOkEnvelope(body) ? body.data : body) as never;
  }
}

function isOkEnvelope(body: unknown): body is { status: 'ok'; data: unknown } {
  return typeof body === 'object' && body !== null && (body as { status?: unknown }).status === 'ok' && 'data' in body;
}
