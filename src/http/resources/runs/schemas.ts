/** JSON schemas of the runs resource: a run, and the events of its stream. */
import { costSchema, nullableString, timestamp } from '../schemas.js';

export const runSchema = {
  type: 'object',
  required: [
    'run_id', 'session_id', 'message', 'status', 'provider', 'resolved_provider', 'created_at', 'started_at',
    'finished_at', 'response', 'error', 'tools_used', 'cost', 'source', 'job_id',
  ],
  properties: {
    run_id: { type: 'string' },
    session_id: { type: 'string' },
    message: { type: 'string', description: 'what the run was asked (secret-censored)' },
    status: { type: 'string', enum: ['pending', 'running', 'waiting_approval', 'complete', 'error', 'cancelled'] },
    provider: { ...nullableString, description: 'provider named in the request, or null' },
    resolved_provider: { ...nullableString, description: 'provider that answers' },
    created_at: timestamp,
    started_at: { type: ['string', 'null'] },
    finished_at: { type: ['string', 'null'] },
    response: { ...nullableString, description: 'final answer (secret-censored) once complete' },
    error: nullableString,
    tools_used: { type: 'array', items: { type: 'string' } },
    cost: costSchema,
    source: { type: 'string', enum: ['api', 'job', 'webhook', 'discord'], description: 'what started the run' },
    job_id: { ...nullableString, description: 'the scheduled job whose fire this run is (source job), else null' },
  },
} as const;


const runSummary = {
  resolved_provider: nullableString,
  tools_used: { type: 'array', items: { type: 'string' } },
  cost: costSchema,
} as const;

/** One Server-Sent Event of a run's stream: its `id`, its `event` name and its `data` (one line of JSON). */
const runEventOf = (event: string, data: Record<string, unknown>) => ({
  type: 'object',
  required: ['id', 'event', 'data'],
  properties: {
    id: { type: 'integer', minimum: 1, description: '1, 2, 3 … per run: what Last-Event-ID names' },
    event: { type: 'string', const: event },
    data: { type: 'object', required: Object.keys(data.properties as object), ...data },
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
      },
    }),
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
