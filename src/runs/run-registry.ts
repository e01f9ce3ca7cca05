import type { RunStore } from '../storage/ports/runs.js';
import type { AuditSink } from '../storage/ports/audit.js';
import { AgentError, runFinished, runNotFound, shuttingDown } from '../contracts/agent-errors.js';
import type { TurnRunner } from '../contracts/agent-turn.js';
import type { Turn } from '../storage/ports/turns.js';
import type { Logger } from '../log.js';
import type { ServiceMetrics } from '../metrics/index.js';
import { censor } from '../security/secrets/secrets.js';
import { newTimeOrderedId } from '../security/ids/tokens.js';
import { EndWriter } from './end-writer.js';
import type { RunViewer, WatchResult } from './fan-out.js';
import { LiveRun, type LiveRunContext, type StartRunInput } from './live-run.js';
import { RemoteRuns } from './remote-runs.js';
import type { RunEventBus } from './run-event-bus.js';
import type { SessionLeases } from './session-leases.js';
import type { SessionSlots } from './session-slots.js';
import { isFinished, isoNow, type RunEvent, type RunHourCount, type RunListQuery, type RunPage, type RunRecord } from '../storage/ports/runs.js';

/** Watchers of one run; past it a new one is refused (each holds a socket anyway). */
export const MAX_VIEWERS_PER_RUN = 10_000;
/** How long shutdown waits for cancelled agent loops to unwind before the database closes. */
export const SHUTDOWN_GRACE_MS = 5_000;

export interface RunRegistryOptions {
  store: RunStore;
  /** What each run executes: the agent's turn. */
  loop: TurnRunner;
  slots: SessionSlots;
  audit: AuditSink;
  log: Logger;
  now?: () => number;
  /** How long `close()` waits for loops to unwind (tests shorten it). */
  shutdownGraceMs?: number;
  /**
   * The other replicas (they share the run store): this one's committed events are published on
   * it, and their runs can be watched and cancelled from here. Absent: one replica.
   */
  bus?: RunEventBus;
  /** The session claims shared with other replicas, taken after this process's slot; absent: one process. */
  leases?: SessionLeases;
  /** Counts each run this process ends, by final status. */
  metrics?: Pick<ServiceMetrics, 'runFinished'>;
  /** Whether a run has an approval pending: for a run of another replica, which reads as `running` from the store. */
  runWaiting?(runId: string): Promise<boolean>;
}

/**
 * Background runs: creation, the agent loop in the background, reads and watches (of runs here,
 * or through `RemoteRuns` of runs on other replicas), cancellation and shutdown. Each run executing
 * here is a `LiveRun`, which stores and fans out its events and writes its end.
 *
 * The session's slot is freed only once the agent loop has unwound: a cancelled run answers at
 * once, but a tool that ignores the abort keeps the session busy until it returns, so it never
 * overlaps the session's next run.
 */
export class RunRegistry {
  /** Runs whose terminal event is not committed yet; readers see their in-memory state. */
  private readonly live = new Map<string, LiveRun>();
  /** Agent loops that have not unwound, by run id. */
  private readonly loops = new Map<string, Promise<void>>();
  /** Finished runs whose last events and end are still being handed to their viewers. */
  private readonly deliveries = new Set<Promise<void>>();
  private readonly now: () => number;
  /** Runs executing on other replicas, watched or cancelled from this one (with a bus). */
  private readonly remote: RemoteRuns | null;
  private closing = false;
  private readonly context: LiveRunContext;

  constructor(private readonly options: RunRegistryOptions) {
    this.now = options.now ?? Date.now;
    const { bus } = options;
    this.context = {
      store: options.store, loop: options.loop, audit: options.audit, log: options.log, now: this.now, bus,
      leases: options.leases, metrics: options.metrics,
      endWriter: new EndWriter({ store: options.store, log: options.log, closing: () => this.closing }),
      ended: (run, delivered) => {
        this.deliveries.add(delivered);
        void delivered.then(() => this.deliveries.delete(delivered));
        this.live.delete(run.record.run_id);
      },
    };
    this.remote = bus ? new RemoteRuns({ store: options.store, bus, log: options.log, maxViewersPerRun: MAX_VIEWERS_PER_RUN }) : null;
    // Every replica hears every cancel request; the one executing the run acts on it.
    bus?.onCancelRequest((runId) => {
      if (this.live.get(runId)?.finished === false) void this.cancel(runId).catch(() => undefined);
    });
  }

  /** Marks runs a previous process left unfinished as failed; call once at start-up. */
  async recoverInterrupted(): Promise<string[]> {
    const ids = await this.options.store.recoverInterrupted(isoNow(this.now), 'interrupted by restart');
    if (ids.length > 0) this.options.log.warn(`marked ${ids.length} run(s) interrupted by the last shutdown as error`);
    return ids;
  }

  get inFlight(): number {
    return this.live.size;
  }

  /**
   * Creates a pending run (committed before this resolves) and starts the agent on it; throws
   * `session_busy` when the session has one.
   */
  async start(input: StartRunInput): Promise<RunRecord> {
    if (this.closing) throw shuttingDown();
    const runId = input.runId ?? newTimeOrderedId('run');
    const { slots, leases } = this.options;
    const controller = slots.acquire(input.sessionId, 'run', runId);
    const record: RunRecord = {
      run_id: runId,
      session_id: input.sessionId,
      message: censor(input.message),
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
      source: input.source,
      job_id: input.jobId ?? null,
      model: null,
      first_token_at: null,
    };
    const { store } = this.options;
    const { contextTurns } = this.options.loop;
    let history: Turn[] | undefined;
    try {
      if (leases && store.createClaimed) {
        // The claim and the run in one statement, where the store keeps both; the turn's context in their commit.
        const read = contextTurns === undefined ? undefined : { limit: contextTurns, read: (turns: Turn[]) => (history = turns) };
        await leases.acquireWith(input.sessionId, runId, (lease) => store.createClaimed!(record, lease, { history: read }));
      } else {
        await leases?.acquire(input.sessionId, 'run', runId);
        await store.create(record);
      }
    } catch (err) {
      await leases?.release(input.sessionId, runId);
      slots.release(input.sessionId, runId);
      throw err;
    }
    const live = new LiveRun(this.context, record, input, controller, history);
    this.live.set(runId, live);
    const snapshot = live.snapshot();
    // The agent starts after the caller has answered 202 with the pending record.
    const loop = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => live.execute())
      .finally(async () => {
        // Not before the run's end is stored (or given up): a claim freed while the end is still
        // being written would leave a `running` run with no claim for another replica to end.
        await live.done;
        // Freed everywhere before the loop counts as unwound: the session's next run may follow at once.
        await leases?.release(record.session_id, runId);
        this.loops.delete(runId);
        slots.release(record.session_id, runId);
      });
    this.loops.set(runId, loop);
    return snapshot;
  }

  async get(runId: string): Promise<RunRecord | null> {
    const live = this.live.get(runId);
    if (live) return live.snapshot();
    // A live run's status is kept here (approvalRequested/approvalResolved); only a stored one is asked about.
    // Its stored `pending` may lag: the start is written without holding the run up, on another
    // connection than its approval's, so an approval can be seen first. Only a started run asks.
    const run = await this.options.store.get(runId);
    if ((run?.status === 'running' || run?.status === 'pending') && (await this.options.runWaiting?.(runId))) run.status = 'waiting_approval';
    return run;
  }

  /** The run and its committed events so far (a run executing here: from memory, else from the store); null when unknown. */
  async withEvents(runId: string): Promise<{ run: RunRecord; events: RunEvent[] } | null> {
    const live = this.live.get(runId);
    if (live) return { run: live.snapshot(), events: [...live.events] };
    const run = await this.get(runId);
    return run ? { run, events: await this.options.store.events(runId, 0) } : null;
  }

  list(sessionId: string, limit: number): Promise<RunRecord[]> {
    return this.options.store.listBySession(sessionId, limit);
  }

  /** Runs of every session as stored: a run paused on an approval is listed as `running`. */
  listAll(query: RunListQuery): Promise<RunPage> {
    return this.options.store.list(query);
  }

  /** Runs created since `since`, per UTC hour and status as stored (a run paused on an approval is `running`). */
  countByHour(since: string): Promise<RunHourCount[]> {
    return this.options.store.countByHour(since);
  }

  /** Resolves with the run's final record once it has finished (null for an unknown id). */
  async whenFinished(runId: string): Promise<RunRecord | null> {
    const live = this.live.get(runId);
    if (live) return live.done;
    return this.options.store.get(runId);
  }

  /** Resolves once the run's agent loop has unwound (at once when it has). */
  async whenUnwound(runId: string): Promise<void> {
    await this.loops.get(runId);
  }

  /** Cancels a pending or running run: it ends at once as `cancelled`. */
  async cancel(runId: string): Promise<RunRecord> {
    const live = this.live.get(runId);
    if (live?.finished) throw runFinished(runId, live.record.status);
    if (!live) {
      const stored = await this.options.store.get(runId);
      if (!stored) throw runNotFound(runId);
      if (this.remote && !isFinished(stored.status)) return this.remote.cancel(runId);
      throw runFinished(runId, stored.status);
    }
    live.cancel();
    return live.snapshot();
  }

  /**
   * The run waits for an operator's decision: `waiting_approval`, and an `approval.request` event
   * with what is asked. A run that is not live here (or has finished) is left alone.
   */
  approvalRequested(runId: string, payload: Record<string, unknown>): void {
    this.live.get(runId)?.setApprovalState('waiting_approval', 'approval.request', payload);
  }

  /** The decision came (or the request was closed without one): `running` again, and `approval.result`. */
  approvalResolved(runId: string, payload: Record<string, unknown>): void {
    this.live.get(runId)?.setApprovalState('running', 'approval.result', payload);
  }

  /**
   * Stops a run whose claim on its session lapsed: another replica may end it as interrupted now.
   * Its agent loop is aborted and its end is stored as `error` unless the store already has one.
   */
  stopLost(runId: string, reason: AgentError): void {
    this.live.get(runId)?.stopLost(reason);
  }

  /**
   * Replays the events after `afterId` and, for a live run, adds `viewer` for the rest. For a live
   * run both happen in one synchronous step, so no event can fall between the replay and the feed.
   */
  async watch(runId: string, afterId: number, viewer: RunViewer): Promise<WatchResult> {
    const attached = this.attach(runId, afterId, viewer);
    if (attached) return attached;
    const stored = await this.options.store.get(runId);
    if (!stored) return { found: false };
    // Stored, unfinished and not ours: it executes on another replica.
    if (this.remote && !isFinished(stored.status)) return this.remote.watch(runId, afterId, viewer);
    // It may have gone live → finished while the store was read; its log is stored by now.
    return { found: true, replay: await this.options.store.events(runId, afterId), finished: true, text: '', stop: () => {} };
  }

  /**
   * Stops accepting runs and ends every run in flight as `error` ("interrupted by shutdown"), with
   * its terminal event stored and sent; then waits (bounded) for the cancelled loops to unwind and
   * for every viewer to be handed its run's last events and end.
   * A loop still running after the bound is named in the log: the store will refuse its writes.
   */
  async close(): Promise<void> {
    this.closing = true;
    for (const live of [...this.live.values()]) {
      live.abort(new AgentError('shutting_down', 'the service is shutting down'), 'interrupted by shutdown');
    }
    await this.remote?.closeAll();
    const settled = await settleWithin(
      [...this.live.values()].map((live) => live.done),
      () => [...this.loops.values(), ...this.deliveries],
      this.options.shutdownGraceMs ?? SHUTDOWN_GRACE_MS,
    );
    if (!settled) {
      const stuck = [...this.loops.keys()];
      if (stuck.length > 0) {
        this.options.log.error(`shutdown: ${stuck.length} agent loop(s) did not stop within the grace period (runs ${stuck.join(', ')}); they were marked interrupted and their later writes are refused`);
      }
    }
  }

  private attach(runId: string, afterId: number, viewer: RunViewer): WatchResult | null {
    const live = this.live.get(runId);
    if (!live) return null;
    if (live.fanOut.size >= MAX_VIEWERS_PER_RUN) {
      throw new AgentError('capacity', `run '${runId}' already has ${MAX_VIEWERS_PER_RUN} viewers`);
    }
    // Only committed events are in `events`: a viewer is never shown an event the store does not
    // have. The ones still being written reach it with everyone else's once they are committed.
    const { fanOut } = live;
    fanOut.add(viewer);
    return {
      found: true,
      replay: live.events.filter((event) => event.id > afterId),
      finished: false,
      text: viewer.sendLive ? live.text.soFar : '',
      // The fan-out only: `stop` lives as long as the connection, which may outlast the run (a slow
      // client still being written its last frames); the run's events and text must not.
      stop: () => fanOut.remove(viewer),
    };
  }
}

/** True when every promise of `first`, then every one `then` lists once those settled, settled within `ms`. */
async function settleWithin(first: Promise<unknown>[], then: () => Promise<unknown>[], ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const all = Promise.allSettled(first).then(() => Promise.allSettled(then())).then(() => true as const);
  try {
    return await Promise.race([all, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
