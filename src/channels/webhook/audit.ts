import { emitInBackground } from '../../audit/log.js';
import { AuditSampler } from '../../audit/sampler.js';
import type { AuditEvent, AuditEventSource, AuditInput, AuditSink } from '../../storage/ports/audit.js';
import type { ApiError } from '../../listener/errors.js';
import type { Logger } from '../../log.js';
import type { ServiceMetrics } from '../../metrics/index.js';
import { charCount } from './payload.js';

/**
 * What the channel records. Accepted requests are written one row each (they are bounded by the
 * rate limit and the queue); refusals go through the sampler keyed by client IP and status, so a
 * flood adds a few rows per client per minute, with the number skipped on the next written row.
 * The prompt text and the signature are never recorded: only the sender and the prompt length
 * (in characters).
 */
export class WebhookAudit {
  private readonly sampler: AuditSampler;

  constructor(
    private readonly sink: (AuditSink & AuditEventSource) | undefined,
    private readonly log: Logger,
    now: () => number,
    /** Counts every refusal by its error code (the audit trail keeps a sample of them). */
    private readonly metrics?: Pick<ServiceMetrics, 'webhookRejected'>,
  ) {
    this.sampler = new AuditSampler(3, 60_000, 10_000, now);
  }

  /** The in-memory queue's acceptance: recorded in the background. */
  accepted(ip: string, sender: string, prompt: string, duplicate = false): void {
    if (this.sink !== undefined) void this.write(() => acceptInput(ip, sender, prompt, duplicate));
  }

  /**
   * A durable intake's acceptance: the event its store commits with the message (or with the check
   * that found a duplicate), so the 202 waits for one commit, not two. Built inside that write:
   * a failure to build fails the write, and the sender hears 5xx instead of a 202 without its event.
   */
  acceptance(ip: string, sender: string, prompt: string): ((duplicate: boolean) => AuditEvent) | undefined {
    const sink = this.sink;
    return sink && ((duplicate) => sink.prepare(acceptInput(ip, sender, prompt, duplicate)));
  }

  rejected(ip: string, error: ApiError): void {
    this.metrics?.webhookRejected(error.code);
    if (this.sink === undefined) return;
    const { statusCode: status, message: reason } = error;
    this.write(() => {
      const sample = this.sampler.take(`${ip}|${status}`);
      if (sample === null) return null;
      return {
        event_type: 'webhook.reject', category: 'webhook', result: 'deny', subsystem: 'webhook', source: ip,
        detail: { status, reason, ip, suppressed_since_last: sample.suppressed },
      };
    });
  }

  /**
   * A failing audit store (or clock) must not turn into a dropped connection or a crash while an
   * error is being answered; it is logged instead.
   */
  private write(build: () => AuditInput | null): Promise<void> {
    const failed = (error: unknown) => this.log.error(`webhook: audit write failed: ${(error as Error)?.name ?? 'error'}`);
    try {
      const input = build();
      if (input !== null) return emitInBackground(this.sink, input, failed);
    } catch (error) {
      failed(error);
    }
    return Promise.resolve();
  }
}

/** `webhook.accept`: the sender and the prompt's length, never the prompt. */
function acceptInput(ip: string, sender: string, prompt: string, duplicate: boolean): AuditInput {
  const detail: Record<string, unknown> = { sender, prompt_length: charCount(prompt), ip };
  if (duplicate) detail.duplicate = true;
  return { event_type: 'webhook.accept', category: 'webhook', result: 'allow', subsystem: 'webhook', source: ip, detail };
}
