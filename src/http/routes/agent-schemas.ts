/** JSON schemas shared by the agent routes (sessions, chat, runs, events, costs). */

export const MAX_MESSAGE_CHARS = 32_000;
export const MAX_ID_CHARS = 256;
export const MAX_PROVIDER_CHARS = 64;
export const MAX_SESSION_NAME_CHARS = 200;

const nullableString = { type: ['string', 'null'] } as const;
const timestamp = { type: 'string', description: 'ISO 8601 UTC with milliseconds' } as const;

export const idParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', minLength: 1, maxLength: MAX_ID_CHARS } },
} as const;

export const costSchema = {
  type: 'object',
  required: ['prompt_tokens', 'completion_tokens', 'cost_usd'],
  properties: {
    prompt_tokens: { type: 'integer' },
    completion_tokens: { type: 'integer' },
    cost_usd: { type: 'number' },
  },
} as const;

export const sessionSchema = {
  type: 'object',
  required: ['id', 'name', 'provider', 'created_at', 'last_used_at', 'turn_count'],
  properties: {
    id: { type: 'string' },
    name: nullableString,
    provider: { type: 'string', description: 'provider used when a request names none' },
    created_at: timestamp,
    last_used_at: timestamp,
    turn_count: { type: 'integer', description: 'turns stored through this session' },
  },
} as const;

export const runSchema = {
  type: 'object',
  required: [
    'run_id', 'session_id', 'message', 'status', 'provider', 'resolved_provider', 'created_at', 'started_at',
    'finished_at', 'response', 'error', 'tools_used', 'cost',
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
  },
} as const;

export const turnSchema = {
  type: 'object',
  required: ['id', 'session_id', 'role', 'content', 'provider', 'timestamp', 'pinned'],
  properties: {
    id: { type: 'string' },
    session_id: { type: 'string' },
    role: { type: 'string', enum: ['user', 'assistant', 'system', 'tool'] },
    content: { type: 'string' },
    provider: nullableString,
    timestamp,
    pinned: { type: 'boolean' },
  },
} as const;

/**
 * Body of POST /chat and POST /runs. A field the route does not know is named in the 400 (a typo
 * such as `sesion_id` would otherwise silently start a new session); a `message` over its
 * maxLength is a 413 (docs/decisions.md#an-over-long-message-is-413), which the error mapping decides.
 */
export const turnBodySchema = {
  type: 'object',
  required: ['message'],
  additionalProperties: false,
  properties: {
    message: { type: 'string', minLength: 1, maxLength: MAX_MESSAGE_CHARS, description: `at most ${MAX_MESSAGE_CHARS} characters (413 beyond)` },
    session_id: { type: 'string', minLength: 1, maxLength: MAX_ID_CHARS, description: 'an API session; a new one is created when omitted' },
    provider: { type: 'string', minLength: 1, maxLength: MAX_PROVIDER_CHARS, description: 'override for this request only' },
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

/** The events of GET /runs/{id}/events (docs/api.md#run-event-stream), named in the OpenAPI document as RunEvent. */
export const runEventSchema = {
  description: 'One event of a run\'s stream, as the SSE fields id, event and data (JSON). run.complete, run.error and run.cancelled are terminal: exactly one ends every run.',
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
  ],
};
