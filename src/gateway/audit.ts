import type { AppendOptions, AuditSink } from '../storage/ports/audit.js';
import type { Logger } from '../log.js';
import type { GatewayCategory } from '../policy/network-policy.js';
import { redactUrl } from './url.js';
import type { GatewayMetrics } from '../metrics/index.js';

/**
 * The gateway's audit events (docs/gateway.md#audit-events). `network_request` (allow) for every
 * completed request; `network_denied` (deny) for every refusal — URL, policy, REST rule, address, size —
 * with the host, category, rule and reason; `network_error` (error) when the transport failed.
 * URLs are always redacted (no credentials, query values replaced). Each request ends in exactly
 * one of these events, so they are also where the gateway's requests are counted.
 */

export type DenialKind = 'url' | 'host' | 'rest' | 'address' | 'size';

export interface DeniedRequest {
  method: string;
  url: URL | string;
  host: string | null;
  stage: DenialKind;
  rule: string | null;
  reason: string;
}

/** What every event of one client names: its category, and the session, run and request it works for. */
export interface AuditScope {
  category: GatewayCategory;
  sessionId: string | null;
  taskId: string | null;
  requestId: string | undefined;
}

/**
 * The gateway's audit writes still being committed: a request returns once its event is handed to
 * the audit log, and `settled` is what a graceful stop waits for, so none of them is lost then.
 */
export class AuditWrites {
  private readonly pending = new Set<Promise<void>>();

  track(write: Promise<void>): void {
    this.pending.add(write);
    void write.finally(() => this.pending.delete(write));
  }

  /** Resolves once every write handed over so far has been committed (or its failure logged). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }
}

/** What a client's audit trail is written with: its gateway's sink, writes in flight, log and metrics. */
export interface GatewayAuditParts {
  readonly audit: AuditSink | undefined;
  readonly auditWrites: AuditWrites;
  readonly log: Logger;
  readonly metrics?: GatewayMetrics;
}

export class GatewayAudit {
  constructor(
    private readonly parts: GatewayAuditParts,
    private readonly scope: AuditScope,
  ) {}

  /**
   * The request got its response. The event is handed to the audit log before this returns (on
   * SQLite that queues it ahead of every write made afterwards) and committed with the next batch,
   * without holding the response for the commit: one commit costs more than a loopback request
   * (docs/gateway.md#audit-events). A graceful stop waits for it (`AuditWrites`).
   */
  completed(method: string, url: URL, status: number, approved: boolean): void {
    this.parts.metrics?.gatewayRequest(this.scope.category, false);
    this.parts.auditWrites.track(this.emit({
      event_type: 'network_request',
      result: 'allow',
      action: method,
      detail: {
        method,
        url: redactUrl(url),
        status_code: status,
        category: this.scope.category,
        ...(approved ? { approved_by: 'operator' } : {}),
      },
    }, { batched: true }));
  }

  /** A refusal: rare, so the caller's error waits for the commit (nothing was sent). */
  denied(denial: DeniedRequest): Promise<void> {
    this.parts.metrics?.gatewayRequest(this.scope.category, true);
    return this.emit({
      event_type: 'network_denied',
      result: 'deny',
      action: denial.method,
      detail: {
        method: denial.method,
        url: redactUrl(denial.url),
        host: denial.host,
        category: this.scope.category,
        stage: denial.stage,
        rule: denial.rule,
        reason: denial.reason,
      },
    });
  }

  failed(method: string, url: URL, error: unknown): Promise<void> {
    this.parts.metrics?.gatewayRequest(this.scope.category, false);
    const err = error as { name?: unknown; code?: unknown };
    return this.emit({
      event_type: 'network_error',
      result: 'error',
      action: method,
      detail: {
        method,
        url: redactUrl(url),
        category: this.scope.category,
        // The error's name and code only: messages can quote server responses.
        error: typeof err?.name === 'string' ? err.name : 'Error',
        ...(typeof err?.code === 'string' ? { code: err.code } : {}),
      },
    });
  }

  /**
   * Resolves once the event is recorded (the sink may write asynchronously), and never rejects:
   * a broken audit log must not hide the request's own outcome.
   */
  private async emit(
    event: { event_type: string; result: 'allow' | 'deny' | 'error'; action: string; detail: Record<string, unknown> },
    options?: AppendOptions,
  ): Promise<void> {
    const sink = this.parts.audit;
    if (!sink) return;
    try {
      // Every field named, no `...event`: V8 (Node 20) defines each property written after a
      // spread through a slow runtime call, about 1 µs apiece, on every request.
      await sink.emit({
        event_type: event.event_type,
        result: event.result,
        action: event.action,
        detail: event.detail,
        category: 'network',
        subsystem: 'gateway',
        source: this.scope.category,
        session_id: this.scope.sessionId,
        task_id: this.scope.taskId,
        request_id: this.scope.requestId,
      }, options);
    } catch (error) {
      // Say so where the operator looks.
      this.parts.log.warn(`gateway: audit event ${event.event_type} could not be written (${(error as Error)?.name ?? 'error'})`);
    }
  }
}
