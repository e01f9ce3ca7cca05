import { withoutNul } from '../security/nul.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AuditSink } from '../storage/ports/audit.js';
import type { Logger } from '../log.js';
import type { Provider } from '../providers/types.js';
import { redact } from '../security/redact.js';
import { censor } from '../security/secrets.js';
import { newId } from '../security/tokens.js';
import type { AgentLoop } from './agent-loop.js';
import { RunClosedError, StorageFullError, StorageUnavailableError } from '../storage/ports/errors.js';
import { FanOut, type RunViewer } from './fan-out.js';
import type { RunEventBus } from './run-event-bus.js';
import { RemoteRuns } from './remote-runs.js';
import { AgentError, claimLost, failureMessage, notStored, runFinished, runNotFound, shuttingDown } from './errors.js';
import type { RunOutcome, RunStore } from '../storage/ports/runs.js';
import { auditRunEnd } from './run-audit.js';
import type { ServiceMetrics } from '../metrics/index.js';
import type { SessionLeases } from './session-leases.js';
import type { SessionSlots } from './session-slots.js';
import type { TurnOrigin } from '../tools/types.js';
import { isFinished, isoNow, type RunCost, type RunEvent, type RunEventName, type RunRecord } from '../storage/ports/runs.js';

/** Watchers of one run; past it a new one is refused (each holds a socket anyway). */
export const MAX_VIEWERS_PER_RUN = 10_000;
/** How long shutdown waits for cancelled agent loops to unwind before the database closes. */
export const SHUTDOWN_GRACE_MS = 5_000;
/** How often the end of a run is tried again while the disk is full. */
export const END_RETRY_MS = 1_000;

export type WatchResult =
  | { found: false }
  | { found: true; replay: RunEvent[]; finished: boolean; stop(): void };

export interface StartRunInput {
  sessionId: string;
  /** `api` for a run on an API session; `channel` for a webhook sender's or a job's run. */
  origin: TurnOrigin;
  message: string;
  provider: Provider;
  /** The provider named by the request (recorded as the run's `provider`), or null. */
  requestedProvider: string | null;
  /** An id chosen before the run exists (a durable channel message names its run when it is accepted). */
  runId?: string;
  /** The HTTP request that started the run, named on its audit events and log lines. */
  requestId?: string;
}

interface LiveRun {
  record: RunRecord;
  origin: TurnOrigin;
  message: string;
  provider: Provider;
  requestId: string | undefined;
  controller: AbortController;
  /** The run's committed log so far, in memory while it runs (bounded by the loop's step and tool caps). */
  events: RunEvent[];
  /** Id of the next event (ids stay unique when a write fails and its event is dropped). */
  nextId: number;
  /** The viewers, and the committed events on their way to them. */
  fanOut: FanOut;
  /** The terminal transition happened (the terminal event may still be committing). */
  finished: boolean;
  /** Its claim on the session lapsed: another replica may end it, so its end is tried once, not until stored. */
  lost?: boolean;
  /** A write of this run failed: nothing more is sent to viewers but the terminal event. */
  broken: boolean;
  /** Settles with the final record once the terminal event is committed (or failed to be). */
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
 * Background runs: creation, the agent loop in the background, the event log (stored and fanned
 * out to viewers), cancellation and shutdown. A run's terminal event is written exactly once, by
 * `finish`, together with its final state; everything the loop reports afterwards is dropped.
 *
 * Two rules hold every run together:
 * - an event reaches viewers only after its write committed, and a failed write ends the run
 *   with `run.error` (nobody is shown what the store lacks);
 * - the session's slot is freed only once the agent loop has unwound: a cancelled run answers at
 *   once, but a tool that ignores the abort keeps the session busy until it returns, so it never
 *   overlaps the session's next run.
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

  constructor(private readonly options: RunRegistryOptions) {
    this.now = options.now ?? Date.now;
    const { bus } = options;
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
    const runId = input.runId ?? newId('run');
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
    };
    const { store } = this.options;
    try {
      if (leases && store.createClaimed) {
        // The claim and the run in one statement, where the store keeps both.
        await leases.acquireWith(input.sessionId, runId, (lease) => store.createClaimed!(record, lease));
      } else {
        await leases?.acquire(input.sessionId, 'run', runId);
        await store.create(record);
      }
    } catch (err) {
      await leases?.release(input.sessionId, runId);
      slots.release(input.sessionId, runId);
      throw err;
    }
    let resolveDone!: (record: RunRecord) => void;
    const done = new Promise<RunRecord>((resolve) => (resolveDone = resolve));
    const fanOut = new FanOut((_viewer, err) => {
      this.options.log.warn(`dropped a viewer of run ${runId}: ${(err as Error)?.message ?? String(err)}`);
    });
    const live: LiveRun = {
      record, origin: input.origin, message: input.message, provider: input.provider, requestId: input.requestId, controller,
      events: [], nextId: 1, fanOut, finished: false, broken: false, done, resolveDone,
    };
    this.live.set(runId, live);
    const snapshot = copy(record);
    // The agent starts after the caller has answered 202 with the pending record.
    const loop = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.execute(live))
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
    if (live) return copy(live.record);
    // A live run's status is kept here (approvalRequested/approvalResolved); only a stored one is asked about.
    const run = await this.options.store.get(runId);
    if (run?.status === 'running' && (await this.options.runWaiting?.(runId))) run.status = 'waiting_approval';
    return run;
  }

  list(sessionId: string, limit: number): Promise<RunRecord[]> {
    return this.options.store.listBySession(sessionId, limit);
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
    live.controller.abort(new AgentError('cancelled', 'the run was cancelled'));
    this.finish(live, { status: 'cancelled' });
    return copy(live.record);
  }

  /**
   * The run waits for an operator's decision: `waiting_approval`, and an `approval.request` event
   * with what is asked. A run that is not live here (or has finished) is left alone.
   */
  approvalRequested(runId: string, payload: Record<string, unknown>): void {
    this.setApprovalState(runId, 'waiting_approval', 'approval.request', payload);
  }

  /** The decision came (or the request was closed without one): `running` again, and `approval.result`. */
  approvalResolved(runId: string, payload: Record<string, unknown>): void {
    this.setApprovalState(runId, 'running', 'approval.result', payload);
  }

  private setApprovalState(runId: string, status: 'waiting_approval' | 'running', event: RunEventName, payload: Record<string, unknown>): void {
    const live = this.live.get(runId);
    if (!live || live.finished) return;
    live.record.status = status;
    this.append(live, event, { run_id: runId, ...payload });
  }

  /**
   * Stops a run whose claim on its session lapsed: another replica may end it as interrupted now.
   * Its agent loop is aborted and its end is stored as `error` unless the store already has one.
   */
  stopLost(runId: string, reason: AgentError): void {
    const live = this.live.get(runId);
    if (!live) return;
    live.lost = true;
    if (live.finished) return;
    live.controller.abort(reason);
    this.finish(live, { status: 'error', error: reason.message });
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
    return { found: true, replay: await this.options.store.events(runId, afterId), finished: true, stop: () => {} };
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
      live.controller.abort(new AgentError('shutting_down', 'the service is shutting down'));
      this.finish(live, { status: 'error', error: 'interrupted by shutdown' });
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
    live.fanOut.add(viewer);
    return {
      found: true,
      replay: live.events.filter((event) => event.id > afterId),
      finished: false,
      stop: () => live.fanOut.remove(viewer),
    };
  }

  private async execute(live: LiveRun): Promise<void> {
    if (live.finished) return;
    const { record } = live;
    const cost = record.cost;
    try {
      this.begin(live);
      const result = await this.options.loop.run({
        sessionId: record.session_id,
        origin: live.origin,
        runId: record.run_id,
        message: live.message,
        provider: live.provider,
        signal: live.controller.signal,
        requestId: live.requestId,
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
      this.finish(live, { status: 'complete', response: result.response }, { unwound: true });
    } catch (err) {
      if (live.finished) return;
      const failure = failureMessage(err);
      if (!failure.expected) this.options.log.error(`run ${record.run_id} failed: ${(err as Error)?.stack ?? String(err)}`, { request_id: live.requestId });
      this.finish(live, { status: 'error', error: failure.message }, { unwound: true });
    }
  }

  private event(live: LiveRun, name: RunEventName, payload: Record<string, unknown>): RunEvent {
    return { id: live.nextId++, name, data: JSON.stringify(payload) };
  }

  /** A non-terminal event: stored, then sent to every viewer. Dropped once the run has finished. */
  private append(live: LiveRun, name: RunEventName, payload: Record<string, unknown>): void {
    if (live.finished) return;
    const event = this.event(live, name, payload);
    this.deliver(live, event, this.options.store.appendEvent(live.record.run_id, event));
  }

  /** Sends `event` once `write` has committed; a failed write ends the run with `run.error`. */
  private deliver(live: LiveRun, event: RunEvent, write: Promise<void>): void {
    write.then(
      () => {
        if (live.broken) return;
        live.events.push(event);
        live.fanOut.send(event);
        this.options.bus?.publish(live.record.run_id, event);
      },
      (err: unknown) => {
        live.broken = true;
        if (err instanceof RunClosedError) {
          // Ended elsewhere (this replica's claim lapsed): stop the loop; the end tried now is
          // refused too, and viewers here get the end that is stored.
          this.options.log.warn(`run ${live.record.run_id} was ended by another replica; its agent loop stops here`, { request_id: live.requestId });
          this.stopLost(live.record.run_id, claimLost());
          return;
        }
        this.options.log.error(`could not store event ${event.id} of run ${live.record.run_id}: ${(err as Error)?.message ?? String(err)}`, { request_id: live.requestId });
        const failure = notStored(err, 'the run could not be stored');
        live.controller.abort(failure);
        this.finish(live, { status: 'error', error: failure.message });
      },
    );
  }

  /** `running`, and the `run.start` event that every run's log opens with. */
  private begin(live: LiveRun): void {
    const { record } = live;
    record.status = 'running';
    record.started_at = isoNow(this.now);
    const start = this.event(live, 'run.start', { run_id: record.run_id, session_id: record.session_id, provider: record.resolved_provider });
    this.deliver(live, start, this.options.store.start(record.run_id, record.started_at, start));
  }

  /**
   * The run's one terminal transition; later calls are no-ops. `unwound`: the agent loop has
   * returned (its turns are stored), so the session may be freed with the run's end, in the same
   * statement where the store keeps the claims; a run ended while its loop still runs (cancelled,
   * shut down) frees it only once the loop has unwound.
   */
  private finish(live: LiveRun, outcome: { status: RunOutcome['status']; response?: string; error?: string }, loop = { unwound: false }): void {
    if (live.finished) return;
    // Cancelled or shut down before the agent began: the log still opens with run.start.
    if (live.nextId === 1) this.begin(live);
    live.finished = true;
    this.options.metrics?.runFinished(outcome.status);
    const { record } = live;
    record.status = outcome.status;
    record.finished_at = isoNow(this.now);
    record.response = outcome.response ?? null;
    // An upstream's error message may hold NUL, which PostgreSQL cannot store (security/nul.ts).
    record.error = outcome.error === undefined ? null : withoutNul(outcome.error);
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
    const { leases, store } = this.options;
    const releaseClaim = loop.unwound && leases !== undefined && store.claimsWithRuns;
    // Queued in the same turn, so on SQLite the end state and its audit event share a commit.
    const stored = this.storeEnd(record.run_id, {
      status: outcome.status, finished_at: final.finished_at!, response: final.response, error: final.error,
      tools_used: final.tools_used, cost,
    }, terminal, releaseClaim, () => live.lost === true);
    void auditRunEnd(this.options.audit, this.options.log, final, live.requestId);
    void stored.then(
      () => {
        // The end's statement freed the claim; until it committed the heartbeat kept renewing it,
        // so a replica alive and retrying its end keeps its run.
        if (releaseClaim) leases.forget(record.run_id);
        live.events.push(terminal);
        live.fanOut.send(terminal);
        this.options.bus?.publish(record.run_id, terminal);
        return final;
      },
      (err: unknown) => {
        if (releaseClaim) leases.forget(record.run_id);
        if (err instanceof RunClosedError) return this.storedEnd(live, final);
        this.options.log.error(
          `could not store the end of run ${record.run_id} (another replica, or the next start, marks it interrupted): ${(err as Error)?.message ?? String(err)}`,
          { request_id: live.requestId },
        );
        return final;
      },
    ).then((settled) => {
      // The viewers still get what is on its way to them, then the end; shutdown waits for that.
      const delivered = live.fanOut.end();
      this.deliveries.add(delivered);
      void delivered.then(() => this.deliveries.delete(delivered));
      // From here readers read the store, which holds the terminal state.
      this.live.delete(record.run_id);
      live.resolveDone(settled);
    });
  }

  /**
   * The end another replica stored for the run (it ended it as interrupted when this one's claim
   * lapsed): viewers here are handed the stored events they lack, and the stored record is the
   * run's final one. When the store cannot be read, `fallback` (viewers resume from the store).
   */
  private async storedEnd(live: LiveRun, fallback: RunRecord): Promise<RunRecord> {
    const runId = live.record.run_id;
    try {
      for (const event of await this.options.store.events(runId, live.events.at(-1)?.id ?? 0)) {
        live.events.push(event);
        live.fanOut.send(event);
      }
      return (await this.options.store.get(runId)) ?? fallback;
    } catch (err) {
      this.options.log.warn(`could not read the end another replica stored for run ${runId}: ${(err as Error)?.message ?? String(err)}`);
      return fallback;
    }
  }

  /**
   * Stores the end of a run, its one terminal event. On a full disk or an unreachable database it
   * is tried again until it is stored (freeing space or the database coming back is enough): until
   * then the run stays live, its claim is renewed, readers see its final state and viewers wait for
   * the terminal event. Should the claim lapse meanwhile, it gives up: another replica ends the run
   * (a try that gets through first finds it closed, `RunClosedError`, and viewers get that end).
   * Once the service is closing it gives up too; the next start (or another replica) marks the run
   * interrupted.
   */
  private async storeEnd(runId: string, outcome: RunOutcome, terminal: RunEvent, releaseClaim: boolean, lost: () => boolean): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.options.store.finish(runId, outcome, terminal, { releaseClaim });
      } catch (err) {
        const passing = err instanceof StorageFullError || err instanceof StorageUnavailableError;
        // With its claim lapsed the run is another replica's to end (it reaps it): this one stops here.
        if (!passing || this.closing || lost()) throw err;
        const why = err instanceof StorageFullError ? 'the storage is full' : 'the database is unavailable';
        if (attempt === 1) this.options.log.error(`could not store the end of run ${runId} (${why}); trying again until it is stored`);
      }
      // Quick at first (a dropped connection is usually back at once), then every END_RETRY_MS.
      await sleep(Math.min(END_RETRY_MS, 100 * 2 ** (attempt - 1)), undefined, { ref: false });
    }
  }
}

function copy(record: RunRecord): RunRecord {
  return { ...record, tools_used: [...record.tools_used], cost: { ...record.cost } };
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
