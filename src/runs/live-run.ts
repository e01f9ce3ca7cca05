import type { RunOutcome, RunStore } from '../storage/ports/runs.js';
import type { AuditSink } from '../storage/ports/audit.js';
import { AgentError, claimLost, failureMessage, notStored } from '../contracts/agent-errors.js';
import type { TurnRunner } from '../contracts/agent-turn.js';
import type { Turn } from '../storage/ports/turns.js';
import type { Logger } from '../log.js';
import type { ServiceMetrics } from '../metrics/index.js';
import type { Provider } from '../providers/types.js';
import { withoutNul } from '../security/input/nul.js';
import { redact } from '../security/secrets/redact.js';
import { RunClosedError } from '../storage/ports/errors.js';
import type { TurnOrigin } from '../tools/types.js';
import type { EndWriter } from './end-writer.js';
import { FanOut, liveEvent } from './fan-out.js';
import { RunText } from './run-text.js';
import { auditRunEnd } from './run-audit.js';
import type { RunEventBus } from './run-event-bus.js';
import type { SessionLeases } from './session-leases.js';
import { isoNow, type RunCost, type RunEvent, type RunEventName, type RunRecord, type RunSource } from '../storage/ports/runs.js';

export interface StartRunInput {
  sessionId: string;
  /** `api` for a run on an API session; `channel` for a webhook sender's or a job's run. */
  origin: TurnOrigin;
  /** What started the run, and the job for a scheduled fire: recorded on it (`RunRecord.source`, `job_id`). */
  source: RunSource;
  jobId?: string;
  message: string;
  provider: Provider;
  /** The provider named by the request (recorded as the run's `provider`), or null. */
  requestedProvider: string | null;
  /** An id chosen before the run exists (a durable channel message names its run when it is accepted). */
  runId?: string;
  /** The HTTP request that started the run, named on its audit events and log lines. */
  requestId?: string;
}

/** What every live run of one registry shares. */
export interface LiveRunContext {
  store: RunStore;
  loop: TurnRunner;
  audit: AuditSink;
  log: Logger;
  now: () => number;
  bus?: RunEventBus;
  leases?: SessionLeases;
  metrics?: Pick<ServiceMetrics, 'runFinished'>;
  endWriter: EndWriter;
  /**
   * The run's end is stored (or given up) and `delivered` settles once its viewers have been handed
   * their last events and the end: from here readers read the store, which holds the terminal state.
   */
  ended(run: LiveRun, delivered: Promise<void>): void;
}

/** Characters of the model name an upstream reports that a run records. */
export const MAX_MODEL_CHARS = 200;

type Outcome = { status: RunOutcome['status']; response?: string; error?: string };

/**
 * A run executing in this process: its agent turn, its committed log (in memory while it runs,
 * bounded by the loop's step and tool caps), its viewers, and its one terminal transition.
 *
 * An event reaches viewers only after its write committed, and a failed write ends the run with
 * `run.error` (nobody is shown what the store lacks). The terminal event is written exactly once,
 * by `finish`, together with the final state; everything the loop reports afterwards is dropped.
 */
export class LiveRun {
  /** The committed events so far, in order. */
  readonly events: RunEvent[] = [];
  /** The viewers, and the committed events on their way to them. */
  readonly fanOut: FanOut;
  /** Settles with the final record once the terminal event is committed (or failed to be). */
  readonly done: Promise<RunRecord>;
  private resolveDone!: (record: RunRecord) => void;
  /** Id of the next event (ids stay unique when a write fails and its event is dropped). */
  private nextId = 1;
  /** The terminal transition happened (the terminal event may still be committing). */
  private terminated = false;
  /** Its claim on the session lapsed: another replica may end it, so its end is tried once, not until stored. */
  private lost = false;
  /** A write of this run failed: nothing more is sent to viewers but the terminal event. */
  private broken = false;
  /** The model's text so far, handed to viewers that asked for it (live only, never stored). */
  readonly text: RunText;

  constructor(
    private readonly context: LiveRunContext,
    readonly record: RunRecord,
    private readonly input: StartRunInput,
    readonly controller: AbortController,
    /** The session's last turns, read with the run's creation; absent: the agent reads them. */
    private readonly history?: readonly Turn[],
  ) {
    this.done = new Promise<RunRecord>((resolve) => (this.resolveDone = resolve));
    this.fanOut = new FanOut(logDroppedViewer(context.log, record.run_id));
    this.text = new RunText((text, offset) => {
      this.fanOut.sendLive(liveEvent('run.delta', text));
      context.bus?.publishText(record.run_id, { offset, text });
    });
  }

  get finished(): boolean {
    return this.terminated;
  }

  /** A copy of the record as it is now. */
  snapshot(): RunRecord {
    return { ...this.record, tools_used: [...this.record.tools_used], cost: { ...this.record.cost } };
  }

  /** Runs the agent's turn and ends the run with its outcome. */
  async execute(): Promise<void> {
    if (this.terminated) return;
    const { record } = this;
    const cost = record.cost;
    try {
      this.begin();
      const result = await this.context.loop.run({
        sessionId: record.session_id,
        origin: this.input.origin,
        runId: record.run_id,
        message: this.input.message,
        provider: this.input.provider,
        signal: this.controller.signal,
        requestId: this.input.requestId,
        history: this.history,
        onUsage: (call, model) => {
          cost.prompt_tokens += call.prompt_tokens;
          cost.completion_tokens += call.completion_tokens;
          cost.cost_usd += call.cost_usd;
          // The upstream's own text: NUL cannot be stored in PostgreSQL (security/input/nul.ts), and a name is short.
          record.model = withoutNul(model).slice(0, MAX_MODEL_CHARS);
        },
        onFirstToken: () => this.noteFirstToken(),
        onDelta: (text) => {
          if (this.terminated) return;
          this.noteFirstToken();
          this.text.add(text);
        },
        onToolRequest: (info) => {
          if (!record.tools_used.includes(info.tool)) record.tools_used.push(info.tool);
          this.append('tool.request', { run_id: record.run_id, call_id: info.call_id, tool: info.tool, arguments: redact(info.arguments) });
        },
        onToolResult: (info) => this.append('tool.result', { run_id: record.run_id, ...info }),
        // Until the end is taken (`finish`, in the turn it is called): later writes go on their own.
        endWrites: () => (this.terminated ? null : this.context.store.endWrites ?? null),
      });
      this.finish({ status: 'complete', response: result.response }, { unwound: true });
    } catch (err) {
      if (this.terminated) return;
      const failure = failureMessage(err);
      if (!failure.expected) this.context.log.error(`run ${record.run_id} failed: ${(err as Error)?.stack ?? String(err)}`, { request_id: this.input.requestId });
      this.finish({ status: 'error', error: failure.message }, { unwound: true });
    }
  }

  /**
   * The first of the answer has come: its time is the run's `first_token_at` (kept once, stored
   * with the run's end, docs/resources.md#runs).
   */
  noteFirstToken(): void {
    this.record.first_token_at ??= isoNow(this.context.now);
  }

  /** Ends the run at once as `cancelled`. */
  cancel(): void {
    this.controller.abort(new AgentError('cancelled', 'the run was cancelled'));
    this.finish({ status: 'cancelled' });
  }

  /** Aborts the agent loop with `reason` and ends the run as `error` with its text (shutdown). */
  abort(reason: AgentError, error: string): void {
    this.controller.abort(reason);
    this.finish({ status: 'error', error });
  }

  /**
   * Its claim on the session lapsed: another replica may end it as interrupted now. The agent loop
   * is aborted and the end is stored as `error` unless the store already has one.
   */
  stopLost(reason: AgentError): void {
    this.lost = true;
    if (this.terminated) return;
    this.abort(reason, reason.message);
  }

  /** The run waits for an operator (`waiting_approval`), or no longer does (`running`); with the event saying so. */
  setApprovalState(status: 'waiting_approval' | 'running', event: RunEventName, payload: Record<string, unknown>): void {
    if (this.terminated) return;
    this.record.status = status;
    this.append(event, { run_id: this.record.run_id, ...payload });
  }


  private event(name: RunEventName, payload: Record<string, unknown>): RunEvent {
    return { id: this.nextId++, name, data: JSON.stringify(payload) };
  }

  /** A non-terminal event: stored, then sent to every viewer. Dropped once the run has finished. */
  private append(name: RunEventName, payload: Record<string, unknown>): void {
    if (this.terminated) return;
    // The text that came before this event goes to viewers before it.
    this.text.flush();
    const event = this.event(name, payload);
    this.deliver(event, this.context.store.appendEvent(this.record.run_id, event));
  }

  /** Sends `event` once `write` has committed; a failed write ends the run with `run.error`. */
  private deliver(event: RunEvent, write: Promise<void>): void {
    const { log, bus } = this.context;
    const runId = this.record.run_id;
    write.then(
      () => {
        if (this.broken) return;
        this.events.push(event);
        this.fanOut.send(event);
        bus?.publish(runId, event);
      },
      (err: unknown) => {
        this.broken = true;
        if (err instanceof RunClosedError) {
          // Ended elsewhere (this replica's claim lapsed): stop the loop; the end tried now is
          // refused too, and viewers here get the end that is stored.
          log.warn(`run ${runId} was ended by another replica; its agent loop stops here`, { request_id: this.input.requestId });
          this.stopLost(claimLost());
          return;
        }
        log.error(`could not store event ${event.id} of run ${runId}: ${(err as Error)?.message ?? String(err)}`, { request_id: this.input.requestId });
        const failure = notStored(err, 'the run could not be stored');
        this.abort(failure, failure.message);
      },
    );
  }

  /** `running`, and the `run.start` event that every run's log opens with. */
  private begin(): void {
    const { record } = this;
    record.status = 'running';
    record.started_at = isoNow(this.context.now);
    const start = this.event('run.start', { run_id: record.run_id, session_id: record.session_id, provider: record.resolved_provider });
    this.deliver(start, this.context.store.start(record.run_id, record.started_at, start));
  }

  /**
   * The run's one terminal transition; later calls are no-ops. `unwound`: the agent loop has
   * returned (its turns are stored), so the session may be freed with the run's end, in the same
   * statement where the store keeps the claims; a run ended while its loop still runs (cancelled,
   * shut down) frees it only once the loop has unwound.
   */
  private finish(outcome: Outcome, loop = { unwound: false }): void {
    if (this.terminated) return;
    // Cancelled or shut down before the agent began: the log still opens with run.start.
    if (this.nextId === 1) this.begin();
    this.terminated = true;
    // The text so far reaches viewers before the end; nothing more is taken.
    this.text.close();
    const { store, leases, log, bus } = this.context;
    this.context.metrics?.runFinished(outcome.status);
    const { record } = this;
    record.status = outcome.status;
    record.finished_at = isoNow(this.context.now);
    record.response = outcome.response ?? null;
    // An upstream's error message may hold NUL, which PostgreSQL cannot store (security/input/nul.ts).
    record.error = outcome.error === undefined ? null : withoutNul(outcome.error);
    const cost: RunCost = { ...record.cost };
    // Every terminal event carries the run's summary, failures included: a run that failed after
    // spending shows what it spent (docs/decisions.md#every-terminal-event-carries-the-summary).
    const summary = { resolved_provider: record.resolved_provider, tools_used: record.tools_used, cost };
    const payload =
      outcome.status === 'complete'
        ? { run_id: record.run_id, response: record.response, ...summary }
        : outcome.status === 'error'
          ? { run_id: record.run_id, error: record.error, ...summary }
          : { run_id: record.run_id, ...summary };
    const name: RunEventName = outcome.status === 'complete' ? 'run.complete' : outcome.status === 'error' ? 'run.error' : 'run.cancelled';
    const terminal = this.event(name, payload);
    const final: RunRecord = { ...record, tools_used: [...record.tools_used], cost };
    const releaseClaim = loop.unwound && leases !== undefined && store.claimsWithRuns;
    // Queued in the same turn, so on SQLite the end state and its audit event share a commit.
    const stored = this.context.endWriter.write(record.run_id, {
      status: outcome.status, finished_at: final.finished_at!, response: final.response, error: final.error,
      tools_used: final.tools_used, cost, model: final.model, first_token_at: final.first_token_at,
    }, terminal, releaseClaim, () => this.lost);
    void auditRunEnd(this.context.audit, log, final, this.input.requestId);
    void stored.then(
      () => {
        // The end's statement freed the claim; until it committed the heartbeat kept renewing it,
        // so a replica alive and retrying its end keeps its run.
        if (releaseClaim) leases.forget(record.run_id);
        this.events.push(terminal);
        this.fanOut.send(terminal);
        bus?.publish(record.run_id, terminal);
        return final;
      },
      (err: unknown) => {
        if (releaseClaim) leases.forget(record.run_id);
        if (err instanceof RunClosedError) return this.storedEnd(final);
        // Given up: the costs and turns kept for the end are written without it.
        store.endWrites?.flush(record.run_id).catch(() => undefined);
        log.error(
          `could not store the end of run ${record.run_id} (another replica, or the next start, marks it interrupted): ${(err as Error)?.message ?? String(err)}`,
          { request_id: this.input.requestId },
        );
        return final;
      },
    ).then((settled) => {
      // The viewers still get what is on its way to them, then the end; shutdown waits for that.
      this.context.ended(this, this.fanOut.end());
      this.resolveDone(settled);
    });
  }

  /**
   * The end another replica stored for the run (it ended it as interrupted when this one's claim
   * lapsed): viewers here are handed the stored events they lack, and the stored record is the
   * run's final one. When the store cannot be read, `fallback` (viewers resume from the store).
   */
  private async storedEnd(fallback: RunRecord): Promise<RunRecord> {
    const runId = this.record.run_id;
    try {
      for (const event of await this.context.store.events(runId, this.events.at(-1)?.id ?? 0)) {
        this.events.push(event);
        this.fanOut.send(event);
      }
      return (await this.context.store.get(runId)) ?? fallback;
    } catch (err) {
      this.context.log.warn(`could not read the end another replica stored for run ${runId}: ${(err as Error)?.message ?? String(err)}`);
      return fallback;
    }
  }
}

/**
 * The fan-out's report of a viewer it dropped. Made here, not in the constructor, so the fan-out
 * holds only the log and the run id: a connection still writing a finished run's last frames to a
 * slow client holds the fan-out, and must not hold the run's events and text with it.
 */
function logDroppedViewer(log: Logger, runId: string): (viewer: unknown, err: unknown) => void {
  return (_viewer, err) => log.warn(`dropped a viewer of run ${runId}: ${(err as Error)?.message ?? String(err)}`);
}
