import type { AuditSink } from '../storage/ports/audit.js';
import type { Config } from '../config/schema.js';
import type { Logger } from '../log.js';
import type { TurnStore } from '../storage/ports/turns.js';
import type { ProviderRegistry } from '../providers/registry.js';
import { newId } from '../security/ids/tokens.js';
import type { ToolRegistry } from '../tools/registry.js';
import { AgentLoop, type ToolApproval } from './agent-loop.js';
import { CostMeter } from './cost-meter.js';
import { AgentError, claimLost, sessionNotFound, shuttingDown } from '../contracts/agent-errors.js';
import type { RunViewer, WatchResult } from '../runs/fan-out.js';
import type { RunEventBus } from '../runs/run-event-bus.js';
import { RunRegistry } from '../runs/run-registry.js';
import { buildRunTrace, MAX_TRACE_APPROVALS, type RunTrace } from '../runs/run-trace.js';
import type { ApprovalRecord } from '../storage/ports/approvals.js';
import { SessionLeases } from '../runs/session-leases.js';
import { SessionSlots } from '../runs/session-slots.js';
import type { CostStore, CostTotals, HourSpend, SessionSpend } from '../storage/ports/costs.js';
import type { RunStore } from '../storage/ports/runs.js';
import type { ApiSession } from '../storage/ports/sessions.js';
import type { SessionClaimStore, SessionStore } from '../storage/ports/sessions.js';
import type { ChannelRunRequest, RunCost, RunHourCount, RunListQuery, RunPage, RunRecord } from '../storage/ports/runs.js';
import { SessionsFullError } from '../storage/ports/errors.js';
import type { ServiceMetrics } from '../metrics/index.js';

export interface AgentRuntimeOptions {
  memory: TurnStore;
  runs: RunStore;
  costs: CostStore;
  /** API sessions; its eviction asks `isBusy` of this runtime. */
  sessions: SessionStore;
  tools: ToolRegistry;
  providers: ProviderRegistry;
  audit: AuditSink;
  config: Pick<Config, 'max_spend_usd' | 'providers'>;
  log: Logger;
  now?: () => number;
  /** Counts finished runs and the tokens and cost of provider calls. */
  metrics?: Pick<ServiceMetrics, 'runFinished' | 'providerUsage'>;
  maxIterations?: number;
  /** How long shutdown waits for agent loops to unwind (tests shorten it). */
  shutdownGraceMs?: number;
  /** The other replicas of the service; absent when this is the only one. */
  bus?: RunEventBus;
  /** Who holds each session across replicas (`Storage.sessionClaims`). */
  claims: SessionClaimStore;
  /** Lease of a session claim and how often it is renewed (default 20 s and 5 s; tests shorten them). */
  leaseMs?: number;
  heartbeatMs?: number;
  /** Approvals: tool calls that wait for an operator, and whether a run waits (on any replica). */
  approvals?: {
    approveTool: ToolApproval;
    runWaiting(runId: string): Promise<boolean>;
    /** Every approval the run asked, in the order asked (its trace). */
    forRun(runId: string, limit: number): Promise<ApprovalRecord[]>;
    /** Ends the session's `allow_session` grants (it was deleted). */
    endSession?(sessionId: string): Promise<void>;
  };
}

export interface TurnRequest {
  message: string;
  /** An API session; a new one is created when omitted. */
  sessionId?: string;
  /** Per-request provider override; never changes the session's or the default provider. */
  provider?: string;
  /**
   * The HTTP request asking for the turn: its id is on the audit events and log lines of the work,
   * a background run's included (which keeps the id of the request that started it).
   */
  requestId?: string;
  /**
   * Aborted when the caller of a synchronous chat went away: the chat stops and its approvals are
   * withdrawn (a run goes on without its caller; only a cancel stops it).
   */
  signal?: AbortSignal;
}

export interface ChatReply {
  response: string;
  session_id: string;
  usage: RunCost;
}

export interface CostSummary {
  totals: CostTotals;
  sessions: SessionSpend[];
  max_spend_usd: number;
}

const chatSessionEnded = () => new AgentError('cancelled', 'the chat was cancelled: its session was ended');
const chatCallerGone = () => new AgentError('cancelled', 'the chat was withdrawn: its caller disconnected');

/** How long shutdown waits for aborted chats to answer their callers. */
const CHAT_SHUTDOWN_GRACE_MS = 5_000;

/**
 * The agent runtime: API sessions, synchronous chat, background runs and their event streams, and
 * costs. The HTTP routes are a thin layer over this class; the scheduler and the webhook channel
 * use `startChannelRun` with their own stable session ids (`job:<id>`, …).
 */
export class AgentRuntime {
  readonly sessions: SessionStore;
  readonly runs: RunRegistry;
  readonly costs: CostStore;
  readonly meter: CostMeter;
  private readonly slots = new SessionSlots();
  /** This replica's claims on its sessions in the shared store, renewed while work runs. */
  readonly leases: SessionLeases;
  private readonly loop: AgentLoop;
  private closing = false;
  /**
   * Chats in flight here, by chat id: how a cancel asked on another replica finds its chat, and
   * what shutdown waits for (each settles once its turns are committed and its slot is free).
   */
  private readonly chats = new Map<string, { controller: AbortController; unwound: Promise<void> }>();

  constructor(private readonly options: AgentRuntimeOptions) {
    const { config } = options;
    this.costs = options.costs;
    this.meter = new CostMeter({
      costs: this.costs,
      maxSpendUsd: config.max_spend_usd,
      providerConfig: (name) => (name === 'anthropic' || name === 'openai' ? config.providers[name] : null),
      now: options.now,
      metrics: options.metrics,
      log: options.log,
    });
    this.sessions = options.sessions;
    this.loop = new AgentLoop({
      memory: options.memory,
      tools: options.tools,
      costs: this.meter,
      audit: options.audit,
      maxIterations: options.maxIterations,
      now: options.now,
      log: options.log,
      onTurnsStored: (id, count) => this.sessions.addTurns(id, count),
      approveTool: options.approvals?.approveTool,
    });
    this.leases = new SessionLeases({
      store: options.claims, log: options.log, now: options.now, leaseMs: options.leaseMs, heartbeatMs: options.heartbeatMs,
      onLost: (sessionId, holderId) => this.stopLost(sessionId, holderId),
    });
    this.runs = new RunRegistry({
      store: options.runs,
      loop: this.loop,
      slots: this.slots,
      audit: options.audit,
      log: options.log,
      now: options.now,
      shutdownGraceMs: options.shutdownGraceMs,
      bus: options.bus,
      leases: this.leases,
      metrics: options.metrics,
      runWaiting: options.approvals?.runWaiting,
    });
    // Every replica hears every cancel request; the one whose chat it names ends it.
    options.bus?.onCancelRequest((id) => this.chats.get(id)?.controller.abort(chatSessionEnded()));
  }

  /**
   * Marks runs a previous process left unfinished and frees the sessions it held; then renews this
   * replica's claims and ends the runs of stopped replicas every heartbeat. Call once before serving.
   */
  async start(): Promise<void> {
    await this.runs.recoverInterrupted();
    await this.leases.start();
  }

  /** Runs and chats in flight. */
  get inFlight(): number {
    return this.slots.size;
  }

  /** Whether a run or chat is in flight on the session in this process (such a session is never evicted). */
  isBusy(sessionId: string): boolean {
    return this.slots.busy(sessionId);
  }

  /** A new API session; its provider defaults to the registry default (unknown/unavailable: throws). */
  async createSession(input: { name?: string | null; provider?: string | null } = {}): Promise<ApiSession> {
    const provider = this.options.providers.resolve(input.provider ?? null);
    return this.newSession({ name: input.name ?? null, provider: provider.name });
  }

  /**
   * Ends an API session: its run or chat in flight is cancelled, its approval answers and
   * `allow_session` grants end.
   * Its turns stay in memory (only retention deletes turns). False when the session is unknown.
   */
  async endSession(sessionId: string): Promise<boolean> {
    if (!(await this.sessions.get(sessionId))) return false;
    await this.cancelInFlight(sessionId);
    const deleted = await this.sessions.delete(sessionId);
    // Before the answer: once the delete is acknowledged, no grant of the session counts any more.
    if (deleted) await this.options.approvals?.endSession?.(sessionId);
    return deleted;
  }

  /** Synchronous chat: blocks until the agent has answered. */
  async chat(request: TurnRequest): Promise<ChatReply> {
    const { session, provider } = await this.prepare(request);
    const chatId = newId('chat');
    const controller = this.slots.acquire(session.id, 'chat', chatId);
    try {
      await this.leases.acquire(session.id, 'chat', chatId);
    } catch (err) {
      this.slots.release(session.id, chatId);
      throw err;
    }
    let settled!: () => void;
    const unwound = new Promise<void>((resolve) => (settled = resolve));
    this.chats.set(chatId, { controller, unwound });
    const callerGone = (): void => controller.abort(chatCallerGone());
    if (request.signal?.aborted) callerGone();
    request.signal?.addEventListener('abort', callerGone, { once: true });
    try {
      await this.sessions.touch(session.id);
      const result = await this.loop.run({
        sessionId: session.id, origin: 'api', runId: null, message: request.message, provider, signal: controller.signal, requestId: request.requestId,
      });
      await this.options.audit.emit({
        event_type: 'agent.run.complete', category: 'agent', result: 'allow', subsystem: 'agent', action: 'chat',
        session_id: session.id, task_id: chatId,
        detail: { chat_id: chatId, resolved_provider: result.resolvedProvider, tools_used: result.toolsUsed, cost: result.cost },
        request_id: request.requestId,
      });
      return { response: result.response, session_id: session.id, usage: result.cost };
    } catch (err) {
      // Whatever the provider or a tool made of the abort, the reason is what the caller must see.
      throw controller.signal.aborted && controller.signal.reason instanceof AgentError ? controller.signal.reason : err;
    } finally {
      request.signal?.removeEventListener('abort', callerGone);
      // The loop has unwound (its turns and costs are committed, or failed): the session is free.
      await this.leases.release(session.id, chatId);
      this.slots.release(session.id, chatId);
      this.chats.delete(chatId);
      settled();
    }
  }

  /** Starts a background run on an API session (created when omitted); 409-style `session_busy` when one is in flight. */
  async startRun(request: TurnRequest): Promise<RunRecord> {
    const { session, provider } = await this.prepare(request);
    const run = await this.runs.start({
      sessionId: session.id, origin: 'api', source: 'api', message: request.message, provider, requestedProvider: request.provider ?? null, requestId: request.requestId,
    });
    if (!this.options.runs.touchesSessions) await this.sessions.touch(session.id);
    return run;
  }

  /**
   * Starts a run on a channel session with a stable id (`job:<id>`, a webhook sender): no API
   * session is involved, and the budget follows the id across restarts.
   */
  async startChannelRun(request: ChannelRunRequest): Promise<RunRecord> {
    if (this.closing) throw shuttingDown();
    const provider = this.options.providers.resolve(request.provider ?? null);
    return this.runs.start({
      sessionId: request.sessionId, origin: 'channel', source: request.source, jobId: request.jobId, message: request.message, provider,
      requestedProvider: request.provider ?? null, runId: request.runId,
    });
  }

  /**
   * Throws `budget_exceeded` when the session has spent `max_spend_usd` (and what `resolve` throws
   * for the provider): a scheduled fire is skipped on it before anything is created.
   */
  async checkBudget(sessionId: string, provider?: string | null): Promise<void> {
    await this.meter.check(sessionId, this.options.providers.resolve(provider ?? null));
  }

  cancelRun(runId: string): Promise<RunRecord> {
    return this.runs.cancel(runId);
  }

  getRun(runId: string): Promise<RunRecord | null> {
    return this.runs.get(runId);
  }

  /** The run with its trace: tool calls, approvals and timings (docs/resources.md#run-trace); null when unknown. */
  async getRunWithTrace(runId: string): Promise<(RunRecord & { trace: RunTrace }) | null> {
    const read = await this.runs.withEvents(runId);
    if (!read) return null;
    const approvals = (await this.options.approvals?.forRun(runId, MAX_TRACE_APPROVALS)) ?? [];
    return { ...read.run, trace: buildRunTrace(read.run, read.events, approvals) };
  }

  listRuns(sessionId: string, limit: number): Promise<RunRecord[]> {
    return this.runs.list(sessionId, limit);
  }

  listAllRuns(query: RunListQuery): Promise<RunPage> {
    return this.runs.listAll(query);
  }

  watchRun(runId: string, afterId: number, viewer: RunViewer): Promise<WatchResult> {
    return this.runs.watch(runId, afterId, viewer);
  }

  /**
   * The run's final record, once it is stored and its agent loop has unwound: a channel's next
   * message on the same session starts only then, so it never finds the session still busy.
   */
  async whenRunFinished(runId: string): Promise<RunRecord | null> {
    const record = await this.runs.whenFinished(runId);
    await this.runs.whenUnwound(runId);
    return record;
  }

  /** Runs created since `since`, per UTC hour and status (the console's activity chart). */
  runsByHour(since: string): Promise<RunHourCount[]> {
    return this.runs.countByHour(since);
  }

  /** Spend since `since`, per UTC hour, provider and model (the console's spend charts). */
  spendByHour(since: string): Promise<HourSpend[]> {
    return this.costs.spendByHour(since);
  }

  /**
   * The per-session cap (0 = none) and how many of the `scan` biggest spenders reached it, without
   * the totals over every call that the summary adds.
   */
  async spendCap(scan: number): Promise<{ max_spend_usd: number; sessions_at_cap: number }> {
    const cap = this.meter.maxSpendUsd;
    if (cap <= 0) return { max_spend_usd: cap, sessions_at_cap: 0 };
    const sessions = await this.costs.topSessions(scan);
    return { max_spend_usd: cap, sessions_at_cap: sessions.filter((session) => session.cost_usd >= cap).length };
  }

  async costSummary(limit: number, offset = 0): Promise<CostSummary> {
    const [totals, sessions] = await Promise.all([this.costs.totals(), this.costs.topSessions(limit, offset)]);
    return { totals, sessions, max_spend_usd: this.meter.maxSpendUsd };
  }

  /** Refuses new work, ends every run and chat in flight, and waits for them to unwind. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    await this.runs.close();
    await Promise.all(this.slots.sessionIds().map((id) => this.cancelInFlight(id)));
    // Aborted chats answer their callers (503) before the listener and the database close.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.chats.values()].map((chat) => chat.unwound)),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, CHAT_SHUTDOWN_GRACE_MS))),
    ]);
    clearTimeout(timer);
    await this.leases.stop();
  }

  private async prepare(request: TurnRequest): Promise<{ session: ApiSession; provider: ReturnType<ProviderRegistry['resolve']> }> {
    if (this.closing) throw shuttingDown();
    let session: ApiSession | null = null;
    if (request.sessionId !== undefined) {
      session = await this.sessions.get(request.sessionId);
      if (!session) throw sessionNotFound(request.sessionId);
    }
    // Resolved before a session is created, so a refused provider leaves nothing behind.
    const provider = this.options.providers.resolve(request.provider ?? session?.provider ?? null);
    session ??= await this.newSession({ provider: this.options.providers.default });
    return { session, provider };
  }

  /** The store's refusal of a new session, as the agent's `capacity` error (503 at the API). */
  private async newSession(input: Parameters<SessionStore['create']>[0]): Promise<ApiSession> {
    try {
      return await this.sessions.create(input);
    } catch (error) {
      if (error instanceof SessionsFullError) throw new AgentError('capacity', error.message);
      throw error;
    }
  }

  /** Stops the run or chat whose claim on the session lapsed (another replica may take the session now). */
  private stopLost(sessionId: string, holderId: string): void {
    const holder = this.slots.holder(sessionId);
    if (holder?.id !== holderId) return;
    if (holder.kind === 'run') this.runs.stopLost(holderId, claimLost());
    else holder.controller.abort(claimLost());
  }

  private async cancelInFlight(sessionId: string): Promise<void> {
    const holder = this.slots.holder(sessionId);
    if (!holder) {
      // Work on another replica is cancelled through it: a run waits (bounded) for its end, a chat
      // is asked to stop and answers its own caller there.
      const claim = this.closing ? null : await this.leases.holder(sessionId);
      if (claim?.kind === 'run') await this.runs.cancel(claim.holder_id).catch(() => undefined);
      if (claim?.kind === 'chat') {
        await this.options.bus?.requestCancel(claim.holder_id).catch((error: unknown) => {
          this.options.log.warn(`could not ask for the cancel of chat ${claim.holder_id} (on another replica) of ended session ${sessionId}: ${(error as Error)?.message ?? String(error)}`);
        });
      }
      return;
    }
    // A run that already finished but whose loop is still unwinding has nothing left to cancel.
    if (holder.kind === 'run') await this.runs.cancel(holder.id).catch(() => undefined);
    else holder.controller.abort(this.closing ? shuttingDown() : chatSessionEnded());
  }
}
