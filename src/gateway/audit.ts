import type { AuditSink } from '../storage/ports/audit.js';
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

export class GatewayAudit {
  constructor(
    private readonly sink: AuditSink | undefined,
    private readonly scope: AuditScope,
    private readonly log: Logger,
    private readonly metrics?: GatewayMetrics,
  ) {}

  completed(method: string, url: URL, status: number, approved: boolean): Promise<void> {
    this.metrics?.gatewayRequest(this.scope.category, false);
    return this.emit({
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
    });
  }

  denied(denial: DeniedRequest): Promise<void> {
    this.metrics?.gatewayRequest(this.scope.category, true);
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
    this.metrics?.gatewayRequest(this.scope.category, false);
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
  private async emit(event: { event_type: string; result: 'allow' | 'deny' | 'error'; action: string; detail: Record<string, unknown> }): Promise<void> {
    const sink = this.sink;
    if (!sink) return;
    try {
      await sink.emit({
        ...event,
        category: 'network',
        subsystem: 'gateway',
        source: this.scope.category,
        session_id: this.scope.sessionId,
        task_id: this.scope.taskId,
        request_id: this.scope.requestId,
      });
    } catch (error) {
      // Say so where the operator looks.
      this.log.warn(`gateway: audit event ${event.event_type} could not be written (${(error as Error)?.name ?? 'error'})`);
    }
  }
}
