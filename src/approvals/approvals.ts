import type { AuditSink } from '../storage/ports/audit.js';
import type { Logger } from '../log.js';
import type { ApprovalAsk, Approver } from '../policy/approver.js';
import { constantTimeEqual } from '../security/secrets/compare.js';
import { newId } from '../security/ids/tokens.js';
import { ApprovalError } from './errors.js';
import { isChannelSession, networkGrant, toolGrant, type Grant } from './grant.js';
import { networkRequest, toolRequest, type ExactRequest, type RequestKeys } from './request-text.js';
import type { ApprovalDecision, ApprovalKind, ApprovalRecord, ApprovalStore, OperatorDecision } from '../storage/ports/approvals.js';

/** Where a run learns that it waits and that it may go on (its status and its event stream). */
export interface RunApprovalEvents {
  approvalRequested(runId: string, payload: Record<string, unknown>): void;
  approvalResolved(runId: string, payload: Record<string, unknown>): void;
}

export interface ApprovalsOptions {
  store: ApprovalStore;
  audit: AuditSink;
  log: Pick<Logger, 'warn' | 'error'>;
  runs: RunApprovalEvents;
  /** `approval_timeout_seconds` in milliseconds. */
  timeoutMs: number;
  /** `tools.require_approval`. */
  toolsRequiringApproval: readonly string[];
  now?: () => number;
  /** How often the store is read for decisions taken on another replica (default 1 s). */
  pollMs?: number;
  /** Requests waiting in this process at most; past it a request is denied at once. */
  maxWaiting?: number;
  /** The installation's request-hash key and the service's own secrets, masked in what is shown. */
  requestKeys: RequestKeys;
}

/** Who or what asks: the work the request belongs to. */
export interface WaitingWork {
  sessionId: string;
  runId: string | null;
  requestId?: string;
  signal?: AbortSignal;
}

export interface OperatorDecisionInput {
  id: string;
  decision: OperatorDecision;
  confirm: string | undefined;
  /** `api_key` or `web_session:<id>`. */
  decidedBy: string;
  requestId?: string;
}

interface Waiter {
  record: ApprovalRecord;
  settle(record: ApprovalRecord): void;
}

/** Who closes approvals when no operator does: a timeout, a restart, a cancelled run. */
const SYSTEM = 'system';
const EXPIRED_PER_PASS = 100;

/**
 * Approvals as a resource: a refused gateway request (`network.interactive_approval: api`) or a
 * call of a tool in `tools.require_approval` becomes a durable record, and the work waits until an
 * operator decides it over the API. It fails closed: no decision within the timeout, a restart, or
 * the end of the run deny it. A decision applies to the exact request whose hash it carries;
 * `allow_session` covers no more than the approval's grant (see `grant.ts`).
 *
 * A decision taken on another replica reaches the waiting run through the store, read every
 * `pollMs` while something waits here.
 */
export class Approvals {
  private readonly waiters = new Map<string, Waiter>();
  private readonly now: () => number;
  private readonly requireApproval: ReadonlySet<string>;
  private poller: NodeJS.Timeout | null = null;
  /** Requests being recorded or waiting (bounded by `maxWaiting`). */
  private asking = 0;
  /** A pass over the store is under way (a slow store must not pile passes up). */
  private polling = false;
  private stopping = false;

  constructor(private readonly options: ApprovalsOptions) {
    this.now = options.now ?? Date.now;
    this.requireApproval = new Set(options.toolsRequiringApproval);
  }

  /** The gateway's approver when `network.interactive_approval` is `api`. */
  readonly network: Approver = {
    approve: async (ask: ApprovalAsk): Promise<boolean> => {
      // Address denials are never put to anyone (a name must not open a path to a private address).
      if (!ask.denial.overridable || ask.sessionId === null) return false;
      // A chat's provider calls name the session as their task; only a run is a run.
      const runId = ask.taskId !== null && ask.taskId !== ask.sessionId ? ask.taskId : null;
      const outcome = await this.ask('network', networkRequest(ask.method, ask.url, this.options.requestKeys), networkGrant(ask.denial), {
        sessionId: ask.sessionId, runId, requestId: ask.requestId, signal: ask.signal,
      });
      return outcome === null;
    },
  };

  /**
   * For the agent loop before each tool call: null when the call may run, else why not (fed back
   * to the model as the tool's error result).
   */
  readonly approveTool = async (tool: string, args: Record<string, unknown>, work: WaitingWork): Promise<string | null> => {
    if (!this.requireApproval.has(tool)) return null;
    const refusal = await this.ask('tool', toolRequest(tool, args, this.options.requestKeys), toolGrant(tool), work);
    return refusal === null ? null : `${tool} was not run: the operator's approval was ${refusal}`;
  };

  /** Pending approvals (or all), newest first; approvals whose waiter is gone are closed first. */
  async list(options: { pendingOnly: boolean; limit: number }): Promise<ApprovalRecord[]> {
    await this.closeExpired();
    return this.options.store.list(options);
  }

  async get(id: string): Promise<ApprovalRecord | null> {
    return this.options.store.get(id);
  }

  /** Every approval the run asked, in the order asked (its trace shows them); at most `limit`. */
  forRun(runId: string, limit: number): Promise<ApprovalRecord[]> {
    return this.options.store.listByRun(runId, limit);
  }

  /** Whether the run waits for a decision (its status is `waiting_approval`, on whichever replica). */
  runWaiting(runId: string): Promise<boolean> {
    return this.options.store.runWaiting(runId);
  }

  /**
   * An operator's decision. The confirm string must be exactly `approve:<id>` (allow) or
   * `deny:<id>`; an approval decided already, timed out included, is refused.
   */
  async decide(input: OperatorDecisionInput): Promise<ApprovalRecord> {
    const current = await this.options.store.get(input.id);
    if (!current) throw new ApprovalError('approval_not_found', `approval '${input.id.slice(0, 64)}' not found`);
    const expected = `${input.decision === 'deny' ? 'deny' : 'approve'}:${current.id}`;
    if (!constantTimeEqual(input.confirm ?? '', expected)) {
      throw new ApprovalError('confirm_mismatch', `${input.decision} needs confirm set to exactly "${input.decision === 'deny' ? 'deny' : 'approve'}:<approval id>"`);
    }
    if (input.decision === 'allow_session' && current.state === 'pending' && !current.session_grant_allowed) {
      throw new ApprovalError('session_grant_refused', current.grant_rule !== null
        ? `allow_session is not offered for approval '${current.id}': it overrides the explicit deny rule ${current.grant_rule}, which only allow_once may override (for this one request)`
        : `allow_session is not offered for approval '${current.id}': decide allow_once or deny`);
    }
    const overdue = current.state === 'pending' && Date.parse(current.expires_at) < this.now();
    const closed = overdue ? null : await this.close(current.id, input.decision, input.decidedBy, input.requestId);
    if (closed) return closed;
    if (overdue) await this.close(current.id, 'timeout', SYSTEM);
    const decided = await this.options.store.get(current.id);
    throw new ApprovalError('already_decided', `approval '${current.id}' was already decided (${decided?.decision ?? 'unknown'})`);
  }

  /** At start: the approvals a previous process left waiting are denied (their runs were interrupted). */
  async recover(): Promise<number> {
    const closed = await this.options.store.closeOwnPending({ decision: 'interrupted', decided_by: SYSTEM, decided_at: this.isoNow() });
    for (const record of closed) await this.auditDecision(record);
    if (closed.length > 0) this.options.log.warn(`denied ${closed.length} approval(s) left pending by the last shutdown`);
    return closed.length;
  }

  /**
   * Stops waiting: what still waits is denied in this process without a write (the service is
   * closing), and stays pending in the store until the next start closes it as `interrupted`.
   */
  stop(): void {
    this.stopping = true;
    for (const waiter of [...this.waiters.values()]) waiter.settle(this.interrupted(waiter.record));
    this.stopPolling();
  }

  /**
   * Ends the session grants of a deleted API session: a grant never outlives what it was given
   * for, on any replica (the store is what they all read).
   */
  async endSession(sessionId: string): Promise<void> {
    await this.options.store.endSessionGrants(sessionId, this.isoNow());
  }

  /** Null when allowed; else the decision that refused it. */
  private async ask(kind: ApprovalKind, request: ExactRequest, grant: Grant, work: WaitingWork): Promise<ApprovalDecision | null> {
    const { store } = this.options;
    const query = { sessionId: work.sessionId, runId: work.runId, kind, scope: grant.scope, stage: grant.stage };
    if (grant.sessionAllowed && await store.granted(query)) return null;
    if (this.stopping || work.signal?.aborted) return 'withdrawn';
    if (this.asking >= (this.options.maxWaiting ?? 1000)) {
      this.options.log.warn(`denied a ${kind} approval request at once: ${this.asking} requests already wait for a decision`);
      return 'deny';
    }
    this.asking++;
    try {
      return await this.askOperator(kind, request, grant, work);
    } finally {
      this.asking--;
    }
  }

  /** Records the request, tells its run, and waits for a decision (or the timeout, the abort, the stop). */
  private async askOperator(kind: ApprovalKind, request: ExactRequest, grant: Grant, work: WaitingWork): Promise<ApprovalDecision | null> {
    const { store } = this.options;
    const createdAt = this.now();
    // A channel session outlives its runs: its grant is the run's, and outside a run there is none.
    const channel = isChannelSession(work.sessionId);
    const record: ApprovalRecord = {
      id: newId('apr'), run_id: work.runId, session_id: work.sessionId, kind, request: request.text, request_hash: request.hash,
      scope: grant.scope, grant_stage: grant.stage, grant_rule: grant.rule,
      session_grant_allowed: grant.sessionAllowed && (!channel || work.runId !== null), grant_run_id: channel ? work.runId : null,
      grant_ended_at: null, state: 'pending', decision: null, decided_by: null, created_at: new Date(createdAt).toISOString(),
      expires_at: new Date(createdAt + this.options.timeoutMs).toISOString(), decided_at: null,
    };
    await store.create(record);
    // What is asked: the run's stream shows the exact request, as the approval does; the audit log
    // keeps its redacted form (it is exported and kept for a year, the request's secrets are not).
    const asked = {
      approval_id: record.id, kind, request: record.request, request_hash: record.request_hash, expires_at: record.expires_at,
      scope: record.scope, grant_stage: record.grant_stage, grant_rule: record.grant_rule, session_grant_allowed: record.session_grant_allowed,
    };
    await this.options.audit.emit({
      event_type: 'approval.request', category: 'policy', result: 'deny', severity: 'warning', subsystem: 'approval',
      action: kind, session_id: work.sessionId, task_id: work.runId,
      detail: { ...asked, request: request.audited },
      request_id: work.requestId,
    });
    if (record.run_id !== null) this.options.runs.approvalRequested(record.run_id, asked);
    const outcome = await this.wait(record, work.signal);
    if (record.run_id !== null) {
      this.options.runs.approvalResolved(record.run_id, {
        approval_id: record.id, decision: outcome.decision, decided_by: outcome.decided_by,
      });
    }
    // A decision counts only for the request it was asked for.
    const allowed = outcome.state === 'allowed' && outcome.request_hash === record.request_hash;
    return allowed ? null : (outcome.decision ?? 'deny');
  }

  private wait(record: ApprovalRecord, signal: AbortSignal | undefined): Promise<ApprovalRecord> {
    // Stopped while the request was being recorded: it stays pending for the next start to close.
    if (this.stopping) return Promise.resolve(this.interrupted(record));
    return new Promise((resolve) => {
      const timer = setTimeout(() => void this.closeQuietly(record.id, 'timeout'), Math.max(0, Date.parse(record.expires_at) - this.now()));
      const onAbort = (): void => {
        if (this.stopping) this.waiters.get(record.id)?.settle(this.interrupted(record));
        else void this.closeQuietly(record.id, 'withdrawn');
      };
      if (signal?.aborted) queueMicrotask(onAbort);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.set(record.id, {
        record,
        settle: (decided) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          this.waiters.delete(record.id);
          if (this.waiters.size === 0) this.stopPolling();
          resolve(decided);
        },
      });
      this.startPolling();
    });
  }

  /** Closes a pending approval; null when it was closed already (elsewhere, or a moment ago). */
  private async close(id: string, decision: ApprovalDecision, decidedBy: string, requestId?: string): Promise<ApprovalRecord | null> {
    const closed = await this.options.store.decide(id, { decision, decided_by: decidedBy, decided_at: this.isoNow() });
    if (!closed) return null;
    await this.auditDecision(closed, requestId);
    this.waiters.get(id)?.settle(closed);
    return closed;
  }

  /** A timeout or withdrawal: when another decision came first, the waiter takes that one. */
  private async closeQuietly(id: string, decision: 'timeout' | 'withdrawn'): Promise<void> {
    try {
      if (await this.close(id, decision, SYSTEM)) return;
      const current = await this.options.store.get(id);
      if (current && current.state !== 'pending') this.waiters.get(id)?.settle(current);
    } catch (error) {
      // Fail closed: the work is denied even when the store cannot record why.
      const waiter = this.waiters.get(id);
      waiter?.settle({ ...waiter.record, state: 'denied', decision, decided_by: SYSTEM, decided_at: this.isoNow() });
      this.options.log.error(`could not record the ${decision} of approval ${id}: ${(error as Error)?.message ?? String(error)}`);
    }
  }

  /**
   * The decision names its request by `approval_id` and `request_hash`; the request's (redacted)
   * text is in the `approval.request` event. The stored record holds only the exact text, which the
   * audit log must not keep, and a decision may be taken on a replica that never saw the request.
   */
  private async auditDecision(record: ApprovalRecord, requestId?: string): Promise<void> {
    await this.options.audit.emit({
      event_type: 'approval.decision', category: 'policy', result: record.state === 'allowed' ? 'allow' : 'deny', subsystem: 'approval',
      actor: record.decided_by, action: record.decision, session_id: record.session_id, task_id: record.run_id,
      detail: { approval_id: record.id, kind: record.kind, request_hash: record.request_hash, decision: record.decision, decided_by: record.decided_by },
      request_id: requestId,
    });
  }

  /** Approvals whose waiter died with its replica are denied once they expire, by whoever lists them. */
  private async closeExpired(): Promise<void> {
    const closed = await this.options.store.closeExpired({ decision: 'timeout', decided_by: SYSTEM, decided_at: this.isoNow() }, EXPIRED_PER_PASS);
    for (const record of closed) {
      await this.auditDecision(record);
      this.waiters.get(record.id)?.settle(record);
    }
  }

  private startPolling(): void {
    if (this.poller !== null) return;
    this.poller = setInterval(() => void this.poll(), this.options.pollMs ?? 1_000);
    this.poller.unref();
  }

  private stopPolling(): void {
    if (this.poller !== null) clearInterval(this.poller);
    this.poller = null;
  }

  /** Decisions taken on another replica: one read of the store for everything waiting here. */
  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      await this.pollOnce();
    } finally {
      this.polling = false;
    }
  }

  private async pollOnce(): Promise<void> {
    if (this.waiters.size === 0) return;
    try {
      const closed = await this.options.store.closedAmong([...this.waiters.keys()]);
      for (const record of closed) this.waiters.get(record.id)?.settle(record);
    } catch (error) {
      this.options.log.warn(`could not read the approvals waiting here: ${(error as Error)?.message ?? String(error)}`);
    }
  }

  /** Denied in this process only: the store keeps it pending until the next start closes it. */
  private interrupted(record: ApprovalRecord): ApprovalRecord {
    return { ...record, state: 'denied', decision: 'interrupted', decided_by: SYSTEM, decided_at: this.isoNow() };
  }

  private isoNow(): string {
    return new Date(this.now()).toISOString();
  }
}
