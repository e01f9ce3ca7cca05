import { withoutNul } from '../security/input/nul.js';
import { redact } from '../security/secrets/redact.js';
import { newId } from '../security/ids/tokens.js';
import { isoTime } from '../util/iso-time.js';
import {
  PRUNED_EVENT_TYPE, type AppendOptions, type AuditEvent, type AuditInput, type AuditEventSource, type AuditPage, type AuditQuery, type AuditSink, type AuditStats, type AuditStore,
  type AuditTimeRange, type ChainedAuditEvent, type ChainVerdict,
} from '../storage/ports/audit.js';

const DEFAULT_SEVERITY = { allow: 'info', deny: 'warning', error: 'error' } as const;
const DAY_MS = 86_400_000;

/**
 * A top-level text field as both backends store it, byte for byte: a lone UTF-16 surrogate
 * becomes U+FFFD (SQLite and PostgreSQL hold UTF-8, which cannot encode one) and so does NUL
 * (PostgreSQL text cannot hold it). Done before the event is hashed, so the hash covers exactly
 * the stored string and `verify` still finds the chain intact; U+FFFD stays visible to whoever
 * reads the log (docs/resources.md#audit). `detail` needs nothing: its JSON escapes both.
 */
function storableText(value: string): string {
  return withoutNul(value.toWellFormed());
}

function optionalText(value: string | null | undefined): string | null {
  return value === undefined || value === null ? null : storableText(String(redact(value)));
}

/**
 * The audit log: every event is redacted before it reaches the store (so no secret is ever
 * written) and stored hash-chained to the previous one. `emit` resolves once the event has been
 * committed.
 */
export class AuditLog implements AuditSink, AuditEventSource {
  constructor(
    private readonly store: AuditStore,
    private readonly now: () => number = Date.now,
  ) {}

  async emit(input: AuditInput, options?: AppendOptions): Promise<AuditEvent> {
    const event = this.prepare(input);
    await this.store.append(event, options);
    return event;
  }

  /** Walks the chain from the oldest kept event (`agentd audit verify`, diagnostics). */
  verify(): Promise<ChainVerdict> {
    return this.store.verify();
  }

  count(): Promise<number> {
    return this.store.count();
  }

  /** The audit browser: one page of the matching events, their exact total and facets. */
  query(query: AuditQuery): Promise<AuditPage> {
    return this.store.query(query);
  }

  stats(): Promise<AuditStats> {
    return this.store.stats();
  }

  /** The chain over a time range, oldest first, for `agentd audit export`. */
  exportChain(range: AuditTimeRange): AsyncIterable<ChainedAuditEvent> {
    return this.store.exportChain(range);
  }

  /**
   * Removes events older than `days`; the chain records each removed range in an `audit.pruned`
   * event, so it still verifies from the oldest kept event. Returns how many went.
   */
  prune(days: number, options: { signal?: AbortSignal } = {}): Promise<number> {
    const cutoff = new Date(this.now() - days * DAY_MS).toISOString();
    return this.store.pruneBefore(
      cutoff,
      (range) => this.prepare({
        event_type: PRUNED_EVENT_TYPE, category: 'audit', result: 'allow', subsystem: 'audit', action: 'retention',
        detail: { ...range, retention_days: days },
      }),
      options,
    );
  }

  /** The event as it is stored, for a store that commits it with writes of its own (see `AuditEventSource`). */
  prepare(input: AuditInput): AuditEvent {
    // `redact` returns a copy, so the request id is set on it rather than spread into another one:
    // the key keeps the place a spread gives it (last, or where `detail` already had it).
    const detail = redact(input.detail ?? {}) as Record<string, unknown>;
    if (input.request_id !== undefined) detail.request_id = redact(input.request_id);
    return {
      id: newId('evt'),
      timestamp: isoTime(this.now()),
      event_type: storableText(input.event_type),
      category: storableText(input.category),
      result: input.result,
      severity: input.severity ?? DEFAULT_SEVERITY[input.result],
      actor: optionalText(input.actor),
      source: optionalText(input.source),
      subsystem: optionalText(input.subsystem),
      action: optionalText(input.action),
      session_id: optionalText(input.session_id),
      task_id: optionalText(input.task_id),
      detail,
    };
  }
}

/**
 * Records an event from code that must not fail because of it (a sampled refusal, a synchronous
 * callback). A failure is reported to `onError`, never thrown or left unhandled; the promise, which
 * never rejects, settles once the event is stored or its failure reported, for a caller that may
 * wait (the durable webhook path answers 202 only after its event committed).
 */
export function emitInBackground(sink: AuditSink | undefined, input: AuditInput, onError: (error: unknown) => void): Promise<void> {
  if (sink === undefined) return Promise.resolve();
  try {
    return Promise.resolve(sink.emit(input)).then(() => undefined, onError);
  } catch (error) {
    onError(error);
    return Promise.resolve();
  }
}
