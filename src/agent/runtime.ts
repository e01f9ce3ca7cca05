import type { AuditSink } from '../audit/types.js';
import type { Config } from '../config/schema.js';
import type { Logger } from '../log.js';
import type { TurnStore } from '../memory/types.js';
import type { ProviderRegistry } from '../providers/registry.js';
import { newId } from '../security/tokens.js';
import type { Database } from '../storage/database.js';
import type { ToolRegistry } from '../tools/registry.js';
import { AgentLoop } from './agent-loop.js';
import { CostMeter } from './cost-meter.js';
import { SqliteCostStore, type CostStore, type CostTotals, type SessionSpend } from './cost-store.js';
import { AgentError, sessionNotFound, shuttingDown } from './errors.js';
import { RunRegistry, type RunViewer, type WatchResult } from './run-registry.js';
import { SqliteRunStore } from './run-store.js';
import { SessionSlots } from './session-slots.js';
import { SessionStore } from './session-store.js';
import type { ApiSession, RunCost, RunRecord } from './types.js';
import { WriteBatch } from './write-batch.js';

export interface AgentRuntimeOptions {
  db: Database;
  memory: TurnStore;
  tools: ToolRegistry;
  providers: ProviderRegistry;
  audit: AuditSink;
  config: Pick<Config, 'max_spend_usd' | 'providers'>;
  log: Logger;
  now?: () => number;
  maxIterations?: number;
  maxSessions?: number;
  /** Forget a session's interactive-approval answers when it ends (the gateway's `endGatewaySession`). */
  onSessionEnd?: (sessionId: string) => void;
}

export interface TurnRequest {
  message: string;
  /** An API session; a new one is created when omitted. */
  sessionId?: string;
  /** Per-request provider override; never changes the session's or the default provider. */
  provider?: string;
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
  private readonly loop: AgentLoop;
  private readonly writes: WriteBatch;
  private closing = false;
  /** Chats in flight, each settled once its turns are committed and its slot is free. */
  private readonly chats = new Set<Promise<void>>();

  constructor(private readonly options: AgentRuntimeOptions) {
    const { config } = options;
    this.writes = new WriteBatch(options.db, (err) => options.log.error(`agent runtime write failed: ${(err as Error)?.message ?? String(err)}`));
    this.costs = new SqliteCostStore(options.db);
    this.meter = new CostMeter({
      costs: this.costs,
      maxSpendUsd: config.max_spend_usd,
      providerConfig: (name) => (name === 'anthropic' || name === 'openai' ? config.providers[name] : null),
      now: options.now,
      writes: this.writes,
    });
    this.sessions = new SessionStore({
      max: options.maxSessions,
      now: options.now,
      isBusy: (id) => this.slots.busy(id),
      onEnd: (id) => options.onSessionEnd?.(id),
    });
    this.loop = new AgentLoop({
      memory: options.memory,
      tools: options.tools,
      costs: this.meter,
      audit: options.audit,
      maxIterations: options.maxIterations,
      now: options.now,
      log: options.log,
      writes: this.writes,
      onTurnsStored: (id, count) => this.sessions.addTurns(id, count),
    });
    this.runs = new RunRegistry({
      store: new SqliteRunStore(options.db),
      loop: this.loop,
      slots: this.slots,
      audit: options.audit,
      log: options.log,
      now: options.now,
      writes: this.writes,
    });
    this.runs.recoverInterrupted();
  }

  /** Runs and chats in flight. */
  get inFlight(): number {
    return this.slots.size;
  }

  /** A new API session; its provider defaults to the registry default (unknown/unavailable: throws). */
  createSession(input: { name?: string | null; provider?: string | null } = {}): ApiSession {
    const provider = this.options.providers.resolve(input.provider ?? null);
    return this.sessions.create({ name: input.name ?? null, provider: provider.name });
  }

  /**
   * Ends an API session: its run or chat in flight is cancelled, its approval answers forgotten.
   * Its turns stay in memory (only retention deletes turns). False when the session is unknown.
   */
  endSession(sessionId: string): boolean {
    if (!this.sessions.get(sessionId)) return false;
    this.cancelInFlight(sessionId);
    return this.sessions.delete(sessionId);
  }

  /** Synchronous chat: blocks until the agent has answered. */
  async chat(request: TurnRequest): Promise<ChatReply> {
    const { session, provider } = this.prepare(request);
    const chatId = newId('chat');
    const controller = this.slots.acquire(session.id, 'chat', chatId);
    this.sessions.touch(session.id);
    let settled!: () => void;
    const unwound = new Promise<void>((resolve) => (settled = resolve));
    this.chats.add(unwound);
    try {
      const result = await this.loop.run({
        sessionId: session.id, runId: null, message: request.message, provider, signal: controller.signal,
      });
      this.options.audit.emit({
        event_type: 'agent.run.complete', category: 'agent', result: 'allow', subsystem: 'agent', action: 'chat',
        session_id: session.id, task_id: chatId,
        detail: { chat_id: chatId, resolved_provider: result.resolvedProvider, tools_used: result.toolsUsed, cost: result.cost },
      });
      return { response: result.response, session_id: session.id, usage: result.cost };
    } catch (err) {
      // Whatever the provider or a tool made of the abort, the reason is what the caller must see.
      throw controller.signal.aborted && controller.signal.reason instanceof AgentError ? controller.signal.reason : err;
    } finally {
      // The answer is acknowledged only once its turns and costs are committed.
      this.writes.flush();
      this.slots.release(session.id, chatId);
      this.chats.delete(unwound);
      settled();
    }
  }

  /** Starts a background run on an API session (created when omitted); 409-style `session_busy` when one is in flight. */
  startRun(request: TurnRequest): RunRecord {
    const { session, provider } = this.prepare(request);
    const run = this.runs.start({ sessionId: session.id, message: request.message, provider, requestedProvider: request.provider ?? null });
    this.sessions.touch(session.id);
    return run;
  }

  /**
   * Starts a run on a channel session with a stable id (`job:<id>`, a webhook sender): no API
   * session is involved, and the budget follows the id across restarts.
   */
  startChannelRun(request: { sessionId: string; message: string; provider?: string | null }): RunRecord {
    if (this.closing) throw shuttingDown();
    const provider = this.options.providers.resolve(request.provider ?? null);
    return this.runs.start({ sessionId: request.sessionId, message: request.message, provider, requestedProvider: request.provider ?? null });
  }

  cancelRun(runId: string): RunRecord {
    return this.runs.cancel(runId);
  }

  getRun(runId: string): RunRecord | null {
    return this.runs.get(runId);
  }

  listRuns(sessionId: string, limit: number): RunRecord[] {
    return this.runs.list(sessionId, limit);
  }

  watchRun(runId: string, afterId: number, viewer: RunViewer): WatchResult {
    return this.runs.watch(runId, afterId, viewer);
  }

  whenRunFinished(runId: string): Promise<RunRecord | null> {
    return this.runs.whenFinished(runId);
  }

  costSummary(limit: number): CostSummary {
    this.writes.flush();
    return { totals: this.costs.totals(), sessions: this.costs.topSessions(limit), max_spend_usd: this.meter.maxSpendUsd };
  }

  /** Refuses new work, ends every run and chat in flight, and waits for them to unwind. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    await this.runs.close();
    for (const session of this.sessions.list(this.sessions.size)) this.cancelInFlight(session.id);
    // Aborted chats answer their callers (503) before the listener and the database close.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.chats]),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, CHAT_SHUTDOWN_GRACE_MS))),
    ]);
    clearTimeout(timer);
    this.sessions.clear();
    this.writes.close();
  }

  private prepare(request: TurnRequest): { session: ApiSession; provider: ReturnType<ProviderRegistry['resolve']> } {
    if (this.closing) throw shuttingDown();
    let session: ApiSession | undefined;
    if (request.sessionId !== undefined) {
      session = this.sessions.get(request.sessionId);
      if (!session) throw sessionNotFound(request.sessionId);
    }
    // Resolved before a session is created, so a refused provider leaves nothing behind.
    const provider = this.options.providers.resolve(request.provider ?? session?.provider ?? null);
    session ??= this.sessions.create({ provider: this.options.providers.default });
    return { session, provider };
  }

  private cancelInFlight(sessionId: string): void {
    const holder = this.slots.holder(sessionId);
    if (!holder) return;
    if (holder.kind === 'run') this.runs.cancel(holder.id);
    else holder.controller.abort(this.closing ? shuttingDown() : new AgentError('cancelled', 'the chat was cancelled: its session was ended'));
  }
}
