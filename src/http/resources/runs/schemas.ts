/** JSON schemas of the runs resource: a run's trace, and the events of its stream. */
import { costSchema, nullableString, runSchema, timestamp } from '../schemas.js';

const nullableTimestamp = { type: ['string', 'null'], description: 'ISO 8601 UTC with milliseconds, or null' } as const;
const approvalStatus = { type: 'string', enum: ['pending', 'allowed', 'denied'] } as const;
const approvalDecision = {
  type: ['string', 'null'], enum: ['allow_once', 'allow_session', 'deny', 'timeout', 'interrupted', 'withdrawn', null],
  description: 'how it was closed; null while pending',
} as const;

/** One tool call of a run's trace (docs/resources.md#run-trace). */
const traceStepSchema = {
  type: 'object',
  required: ['call_id', 'tool', 'arguments', 'started_at', 'finished_at', 'duration_ms', 'is_error', 'result_preview', 'result_truncated', 'error', 'approval'],
  properties: {
    call_id: { type: 'string' },
    tool: { type: 'string' },
    arguments: { type: 'object', additionalProperties: true, description: 'redacted, as in the tool.request event' },
    started_at: { ...nullableTimestamp, description: 'when the call was asked for (before any approval); null for calls stored without it' },
    finished_at: { ...nullableTimestamp, description: 'when its result came; null while it runs' },
    duration_ms: { type: ['number', 'null'], description: 'how long the tool itself ran (an approval\'s wait not included); null while it runs' },
    is_error: { type: ['boolean', 'null'], description: 'null while it runs' },
    result_preview: { ...nullableString, description: 'the start of the result, redacted as the audit log redacts, at most 2,000 characters' },
    result_truncated: { type: 'boolean', description: 'the result was longer than the preview' },
    error: { ...nullableString, description: 'the tool\'s error (redacted, at most 500 characters); null when it succeeded' },
    approval: {
      type: ['object', 'null'],
      description: 'the approval the call waited for: its tool approval, else the first network request it had approved; null when none',
      required: ['approval_id', 'status', 'decision', 'decided_by', 'decided_at'],
      properties: {
        approval_id: { type: 'string' },
        status: approvalStatus,
        decision: approvalDecision,
        decided_by: { ...nullableString, description: 'api_key, web_session:<id>, or system when it failed closed' },
        decided_at: nullableTimestamp,
      },
    },
  },
} as const;

/** What GET /runs/{id} adds to the run: its tool calls, approvals and timings (not in the lists). */
export const runTraceSchema = {
  type: 'object',
  required: ['steps', 'approvals', 'timings'],
  properties: {
    steps: { type: 'array', items: traceStepSchema, description: 'every tool call, in the order asked' },
    approvals: {
      type: 'array',
      description: 'every approval the run asked (tool calls and refused network requests), in the order asked',
      items: {
        type: 'object',
        required: ['approval_id', 'kind', 'subject', 'status', 'decision', 'created_at', 'decided_at', 'decided_by'],
        properties: {
          approval_id: { type: 'string' },
          kind: { type: 'string', enum: ['network', 'tool'] },
          subject: { type: 'string', description: 'the tool name (tool), or the origin scheme://host:port (network)' },
          status: approvalStatus,
          decision: approvalDecision,
          created_at: timestamp,
          decided_at: nullableTimestamp,
          decided_by: nullableString,
        },
      },
    },
    timings: {
      type: 'object',
      required: ['queued_at', 'started_at', 'first_token_at', 'finished_at', 'queue_ms', 'total_ms'],
      properties: {
        queued_at: { ...timestamp, description: 'created_at: when the run was accepted' },
        started_at: nullableTimestamp,
        first_token_at: nullableTimestamp,
        finished_at: nullableTimestamp,
        queue_ms: { type: ['number', 'null'], description: 'from queued to started; null until it starts' },
        total_ms: { type: ['number', 'null'], description: 'from queued to finished; null until it finishes' },
      },
    },
  },
} as const;

/** A run as GET /runs/{id} answers it: the record and its trace. */
export const runWithTraceSchema = {
  ...runSchema,
  required: [...runSchema.required, 'trace'],
  properties: { ...runSchema.properties, trace: runTraceSchema },
} as const;


const runSummary = {
  resolved_provider: nullableString,
  tools_used: { type: 'array', items: { type: 'string' } },
  cost: costSchema,
} as const;

/**
 * One Server-Sent Event of a run's stream: its `id`, its `event` name and its `data` (one line of
 * JSON). Every property of `data` is required but the `optional` ones (absent from events stored before they existed).
 */
const runEventOf = (event: string, data: Record<string, unknown>, optional: readonly string[] = []) => ({
  type: 'object',
  required: ['id', 'event', 'data'],
  properties: {
    id: { type: 'integer', minimum: 1, description: '1, 2, 3 … per run: what Last-Event-ID names' },
    event: { type: 'string', const: event },
    data: { type: 'object', required: Object.keys(data.properties as object).filter((key) => !optional.includes(key)), ...data },
  },
});

/** A live-only event (`include=deltas`): no id, never stored, not resumable by itself. */
const liveEventOf = (event: string, description: string) => ({
  type: 'object',
  required: ['event', 'data'],
  description,
  properties: {
    event: { type: 'string', const: event },
    data: { type: 'object', required: ['text'], properties: { text: { type: 'string', description: 'secret-censored' } } },
  },
});

/** The events of GET /runs/{id}/events (docs/api.md#run-event-stream), named in the OpenAPI document as RunEvent. */
export const runEventSchema = {
  description: 'One event of a run\'s stream, as the SSE fields id, event and data (JSON). run.complete, run.error and run.cancelled are terminal: exactly one ends every run. run.delta and run.text (with include=deltas) have no id.',
  oneOf: [
    runEventOf('run.start', { properties: { run_id: { type: 'string' }, session_id: { type: 'string' }, provider: nullableString } }),
    runEventOf('tool.request', {
      properties: {
        run_id: { type: 'string' },
        call_id: { type: 'string' },
        tool: { type: 'string' },
        arguments: { type: 'object', additionalProperties: true, description: 'redacted' },
      },
    }),
    runEventOf('tool.result', {
      properties: {
        run_id: { type: 'string' },
        call_id: { type: 'string' },
        tool: { type: 'string' },
        is_error: { type: 'boolean' },
        duration_ms: { type: 'number' },
        started_at: { type: 'string', description: 'when the call was asked for (before any approval)' },
        finished_at: { type: 'string', description: 'when its result came' },
        result_preview: { type: 'string', description: 'the start of the result, redacted as the audit log redacts, at most 2,000 characters' },
        result_truncated: { type: 'boolean' },
        error: { type: ['string', 'null'], description: 'the tool\'s error (redacted, at most 500 characters); null when it succeeded' },
      },
    }, ['started_at', 'finished_at', 'result_preview', 'result_truncated', 'error']),
    runEventOf('approval.request', {
      properties: {
        run_id: { type: 'string' },
        approval_id: { type: 'string' },
        kind: { type: 'string', enum: ['network', 'tool'] },
        request: { type: 'string', description: 'the exact request as text, as the approval shows it: method and URL, or tool name and canonical JSON arguments' },
        request_hash: { type: 'string', description: 'HMAC-SHA256 of the exact request under the installation\'s key; a decision applies to it alone' },
        expires_at: { type: 'string', description: 'ISO 8601; denied as timed out after it' },
        scope: { type: 'string', description: 'what allow_session would cover with grant_stage: the origin (scheme://host:port) or the tool name' },
        grant_stage: { type: 'string', enum: ['host', 'rest', 'tool'] },
        grant_rule: { type: ['string', 'null'], description: 'the config rule the approval overrides, when one refused it' },
        session_grant_allowed: { type: 'boolean', description: 'false: allow_once only (an explicit REST deny rule)' },
      },
    }),
    runEventOf('approval.result', {
      properties: {
        run_id: { type: 'string' },
        approval_id: { type: 'string' },
        decision: { type: ['string', 'null'], description: 'allow_once, allow_session or deny; null when it timed out, was withdrawn or interrupted' },
        decided_by: { type: ['string', 'null'] },
      },
    }),
    runEventOf('run.complete', { properties: { run_id: { type: 'string' }, response: { type: 'string' }, ...runSummary } }),
    runEventOf('run.error', { properties: { run_id: { type: 'string' }, error: { type: 'string' }, ...runSummary } }),
    runEventOf('run.cancelled', { properties: { run_id: { type: 'string' }, ...runSummary } }),
    liveEventOf('run.delta', 'with include=deltas: the next piece of the model\'s text as it is written (at most one per ~30 ms); live only, no id'),
    liveEventOf('run.text', 'with include=deltas: the model\'s text so far, first for a viewer that joins or resumes mid-answer; live only, no id'),
  ],
};
