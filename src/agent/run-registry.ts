import type { AuditSink } from '../audit/types.js';
import type { Logger } from '../log.js';
import type { Provider } from '../providers/types.js';
import { redact } from '../security/redact.js';
import { newId } from '../security/tokens.js';
import type { AgentLoop } from './agent-loop.js';
import { AgentError, failureMessage, runFinished, runNotFound, shuttingDown } from './errors.js';
import type { RunOutcome, RunStore } from './run-store.js';
import type { SessionSlots } from './session-slots.js';
import { isoNow, type RunCost, type RunEvent, type RunEventName, type RunRecord } from './types.js';
import { immediateWrites, type Writes } from './write-batch.js';

/** Watchers of one run; past it a new one is refused (each holds a socket anyway). */
export const MAX_VIEWERS_PER_RUN = 10_000;
/** How long shutdown waits for cancelled agent loops to unwind before the database closes. */
const SHUTDOWN_GRACE_MS = 5_000;

/**
 * Someone watching a run's events (an SSE connection). `send` must never block or throw: a slow
 * viewer buffers (bounded) or disconnects itself, so it can never hold up the run or other viewers.
 */
export interface RunViewer {
  send(event: RunEvent): void;
  /** The run has finished (its terminal event was the last `send`), or the service is closing. */
  end(): void;
}

export type WatchResult =
  | { found: false }
  | { found: true; replay: RunEvent[]; finished: boolean; stop(): void };

const runKey = (runId: string) => `run:${runId}`;

export interface StartRunInput {
  sessionId: string;
  message: string;
  provider: Provider;
  /** The provider named by the request (recorded as the run's `provider`), or null. */
  requestedProvider: string | null;
}

interface LiveRun {
  record: RunRecord;
  message: string;
  provider: Provider;
  controller: AbortController;
  /** The run's log so far, in memory while it runs (bounded by the loop's step and tool caps). */
  events: RunEvent[];
  /** Id of the last event committed (and so sent to viewers). */
  committed: number;
  viewers: Set<RunViewer>;
  finished: boolean;
  done: Promise<RunRecord>;
  resolveDone(record: RunRecord): void;
}

export interface RunRegistryOptions {
  store: RunStore;
  loop: AgentLoop;
  slots: SessionSlots;
  audit: AuditSink;
  log: Logger;
  now?: () => number;
  /** Where events and run states go (batched by the runtime); default: written at once. */
  writes?: Writes;
}

/**
 * Background runs: creation, the agent loop in the background, the event log (stored and fanned
 * out to viewers), cancellation and shutdown. A run's terminal event is written exactly once, by
 * `finish`, together with its final state; everything the loop reports afterwards is dropped.
 */
export class RunRegistry {
  private readonly live = new Map<string, LiveRun>();
  private readonly loops = new Set<Promise<void>>();
  private readonly now: () => number;
  private readonly writes: Writes;
  private closing = false;

  constructor(private readonly options: RunRegistryOptions) {
    this.now = options.now ?? Date.now;
    this.writes = options.writes ?? immediateWrites;
  }

  /** Marks runs a previous process left unfinished as failed; call once at start-up. */
  recoverInterrupted(): string[] {
    const ids = this.options.store.recoverInterrupted(isoNow(this.now), 'interrupted by restart');
    if (ids.length > 0) this.options.log.warn(`marked ${ids.length} run(s) interrupted by the last shutdown as error`);
    return ids;
  }

  get inFlight(): number {
    return this.live.size;
  }

  /** Creates a pending run and starts the agent on it; throws `session_busy` when the session has one. */
  start(input: StartRunInput): RunRecord {
    if (this.closing) throw shuttingDown();
    const runId = newId('run');
    const controller = this.options.slots.acquire(input.sessionId, 'run', runId);
    const record: RunRecord = {
      run_id: runId,
      session_id: input.sessionId,
      status: 'pending',
      provider: input.requestedProvider,
      resolved_provider: input.provider.name,
      created_at: isoNow(this.now),
      started_at: null,
      finished_at: null,
      response: null,
      error: null,
      tools_used: [],
      cost: { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 },
    };
    try {
      this.options.store.create(record);
    } catch (err) {
      this.options.slots.release(input.sessionId, runId);
      throw err;
    }
    let resolveDone!: (record: RunRecord) => void;
    const done = new Promise<RunRecord>((resolve) => (resolveDone = resolve));
    const live: LiveRun = {
      record, message: input.message, provider: input.provider, controller,
      events: [], committed: 0, viewers: new Set(), finished: false, done, resolveDone,
    };
    this.live.set(runId, live);
    // The agent starts after the caller has answered 202 with the pending record.
    const loop = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.execute(live))
      .finally(() => this.loops.delete(loop));
    this.loops.add(loop);
    return { ...record, tools_used: [...record.tools_used], cost: { ...record.cost } };
  }

  get(runId: string): RunRecord | null {
    const live = this.live.get(runId);
    if (live) return { ...live.record, tools_used: [...live.record.tools_used], cost: { ...live.record.cost } };
    this.writes.flushFor(runKey(runId));
    return this.options.store.get(runId);
  }

  list(sessionId: string, limit: number): RunRecord[] {
    this.writes.flush();
    return this.options.store.listBySession(sessionId, limit);
  }

  /** Resolves with the run's final record once it has finished (null for an unknown id). */
  async whenFinished(runId: string): Promise<RunRecord | null> {
    const live = this.live.get(runId);
    if (live) return live.done;
    this.writes.flushFor(runKey(runId));
    return this.options.store.get(runId);
  }

  /** Cancels a pending or running run: it ends at once as `cancelled`. */
  cancel(runId: string): RunRecord {
    const live = this.live.get(runId);
    if (!live) {
      this.writes.flushFor(runKey(runId));
      const stored = this.options.store.get(runId);
      if (!stored) throw runNotFound(runId);
      throw runFinished(runId, stored.status);
    }
    live.controller.abort(new AgentError('cancelled', 'the run was cancelled'));
    this.finish(live, { status: 'cancelled' });
    return this.get(runId)!;
  }

  /**
   * Replays the events after `afterId` and, for a live run, adds `viewer` for the rest. Both happen
   * in one synchronous step, so no event can fall between the replay and the live feed.
   */
  watch(runId: string, afterId: number, viewer: RunViewer): WatchResult {
    const live = this.live.get(runId);
    if (!live) {
      this.writes.flushFor(runKey(runId));
      if (!this.options.store.get(runId)) return { found: false };
      return { found: true, replay: this.options.store.events(runId, afterId), finished: true, stop: () => {} };
    }
    if (live.viewers.size >= MAX_VIEWERS_PER_RUN) {
      throw new AgentError('capacity', `run '${runId}' already has ${MAX_VIEWERS_PER_RUN} viewers`);
    }
    // Only committed events are replayed: a viewer is never shown an event the store does not
    // have. The ones still queued reach it with everyone else's once they are committed.
    live.viewers.add(viewer);
    return {
      found: true,
      replay: live.events.filter((event) => event.id > afterId && event.id <= live.committed),
      finished: false,
      stop: () => void live.viewers.delete(viewer),
    };
  }

  /**
   * Stops accepting runs and ends every run in flight as `error` ("interrupted by shutdown"), with
   * its terminal event stored and sent; then waits (bounded) for the cancelled loops to unwind so
   * nothing writes to the database after it closes.
   */
  async close(): Promise<void> {
    this.closing = true;
    for (const live of [...this.live.values()]) {
      live.controller.abort(new AgentError('shutting_down', 'the service is shutting down'));
      this.finish(live, { status: 'error', error: 'interrupted by shutdown' });
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.loops]),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, SHUTDOWN_GRACE_MS))),
    ]);
    clearTimeout(timer);
    this.writes.flush();
  }

  private async execute(live: LiveRun): Promise<void> {
    if (live.finished) return;
    const { record } = live;
    const cost = record.cost;
    try {
      this.begin(live);
      const result = await this.options.loop.run({
        sessionId: record.session_id,
        runId: record.run_id,
        message: live.message,
        provider: live.provider,
        signal: live.controller.signal,
        onUsage: (call) => {
          cost.prompt_tokens += call.prompt_tokens;
          cost.completion_tokens += call.completion_tokens;
          cost.cost_usd += call.cost_usd;
        },
        onToolRequest: (info) => {
          if (!record.tools_used.includes(info.tool)) record.tools_used.push(info.tool);
          this.append(live, 'tool.request', { run_id: record.run_id, call_id: info.call_id, tool: info.tool, arguments: redact(info.arguments) });
        },
        onToolResult: (info) => this.append(live, 'tool.result', { run_id: record.run_id, ...info }),
      });
      this.finish(live, { status: 'complete', response: result.response });
    } catch (err) {
      if (live.finished) return;
      const failure = failureMessage(err);
      if (!failure.expected) this.options.log.error(`run ${record.run_id} failed: ${(err as Error)?.stack ?? String(err)}`);
      this.finish(live, { status: 'error', error: failure.message });
    }
  }

  private event(live: LiveRun, name: RunEventName, payload: Record<string, unknown>): RunEvent {
    const event: RunEvent = { id: live.events.length + 1, name, data: JSON.stringify(payload) };
    live.events.push(event);
    return event;
  }

  /** A non-terminal event: stored, then sent to every viewer. Dropped once the run has finished. */
  private append(live: LiveRun, name: RunEventName, payload: Record<string, unknown>): void {
    if (live.finished) return;
    const event = this.event(live, name, payload);
    this.writes.defer(() => this.options.store.appendEvent(live.record.run_id, event), () => this.broadcast(live, event), runKey(live.record.run_id));
  }

  private broadcast(live: LiveRun, event: RunEvent): void {
    live.committed = event.id;
    for (const viewer of live.viewers) {
      try {
        viewer.send(event);
      } catch (err) {
        live.viewers.delete(viewer);
        this.options.log.warn(`dropped a viewer of run ${live.record.run_id}: ${(err as Error).message}`);
      }
    }
  }

  /** `running`, and the `run.start` event that every run's log opens with. */
  private begin(live: LiveRun): void {
    const { record } = live;
    record.status = 'running';
    record.started_at = isoNow(this.now);
    const start = this.event(live, 'run.start', { run_id: record.run_id, session_id: record.session_id, provider: record.resolved_provider });
    const startedAt = record.started_at;
    this.writes.defer(() => this.options.store.start(record.run_id, startedAt, start), () => this.broadcast(live, start), runKey(record.run_id));
  }

  /** The run's one terminal transition; later calls are no-ops. */
  private finish(live: LiveRun, outcome: { status: RunOutcome['status']; response?: string; error?: string }): void {
    if (live.finished) return;
    // Cancelled or shut down before the agent began: the log still opens with run.start.
    if (live.events.length === 0) this.begin(live);
    live.finished = true;
    const { record } = live;
    record.status = outcome.status;
    record.finished_at = isoNow(this.now);
    record.response = outcome.response ?? null;
    record.error = outcome.error ?? null;
    const cost: RunCost = { ...record.cost };
    // Every terminal event carries the run's summary (the spec's rule), failures included: a run
    // that failed after spending shows what it spent.
    const summary = { resolved_provider: record.resolved_provider, tools_used: record.tools_used, cost };
    const payload =
      outcome.status === 'complete'
        ? { run_id: record.run_id, response: record.response, ...summary }
        : outcome.status === 'error'
          ? { run_id: record.run_id, error: record.error, ...summary }
          : { run_id: record.run_id, ...summary };
    const name: RunEventName = outcome.status === 'complete' ? 'run.complete' : outcome.status === 'error' ? 'run.error' : 'run.cancelled';
    const terminal = this.event(live, name, payload);
    const final: RunRecord = { ...record, tools_used: [...record.tools_used], cost };
    // The run leaves the live map now: from here readers flush and read the store, which by then
    // holds the terminal state; viewers get the terminal event once it is committed.
    this.live.delete(record.run_id);
    this.options.slots.release(record.session_id, record.run_id);
    this.writes.defer(
      () => {
        try {
          this.options.store.finish(record.run_id, {
            status: outcome.status, finished_at: final.finished_at!, response: final.response, error: final.error,
            tools_used: final.tools_used, cost,
          }, terminal);
        } catch (err) {
          this.options.log.error(`could not store the end of run ${record.run_id}: ${(err as Error).message}`);
        }
        this.audit(final);
      },
      () => {
        this.broadcast(live, terminal);
        for (const viewer of live.viewers) viewer.end();
        live.viewers.clear();
        live.resolveDone(final);
      },
      runKey(record.run_id),
    );
  }

  private audit(record: RunRecord): void {
    const summary = { run_id: record.run_id, resolved_provider: record.resolved_provider, tools_used: record.tools_used, cost: record.cost };
    try {
      this.options.audit.emit(
        record.status === 'complete'
          ? { event_type: 'agent.run.complete', category: 'agent', result: 'allow', subsystem: 'agent', action: 'run', session_id: record.session_id, task_id: record.run_id, detail: summary }
          : {
              event_type: record.status === 'cancelled' ? 'agent.run.cancelled' : 'agent.run.error',
              category: 'agent', result: 'error', severity: record.status === 'cancelled' ? 'info' : 'error', subsystem: 'agent', action: 'run',
              session_id: record.session_id, task_id: record.run_id, detail: { ...summary, status: record.status, error: record.error },
            },
      );
    } catch (err) {
      this.options.log.error(`could not audit the end of run ${record.run_id}: ${(err as Error).message}`);
    }
  }
}
