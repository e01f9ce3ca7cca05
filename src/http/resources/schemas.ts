/** JSON schemas several resources share: ids, the turn a chat or run is asked, a run, the status, hourly counts, what a control answers. */
import { CONTROL_IDS } from '../../controls/index.js';

export const MAX_MESSAGE_CHARS = 32_000;
export const MAX_ID_CHARS = 256;
export const MAX_PROVIDER_CHARS = 64;

export const nullableString = { type: ['string', 'null'] } as const;
export const timestamp = { type: 'string', description: 'ISO 8601 UTC with milliseconds' } as const;

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


/** Where a control's confirm string goes. */
export const confirmField = { type: 'string', maxLength: 512, description: 'exactly the target\'s confirm string, e.g. pause-job:<job id>' } as const;

export const controlResultSchema = {
  type: 'object',
  required: ['control', 'target', 'previous', 'current'],
  properties: {
    control: { type: 'string', enum: CONTROL_IDS },
    target: { type: 'string' },
    previous: { type: 'string', description: 'the target\'s state (or the default provider) before' },
    current: { type: 'string', description: 'and after' },
  },
} as const;

/** A stored turn, as a session's history and the memory history answer it. */
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

/** The answer of an hourly count (docs/resources.md#hourly-counts): the start used, and one row per hour and key. */
export function hourlySchema(row: Record<string, unknown>): Record<string, unknown> {
  const properties = { hour: { type: 'string', description: 'start of the UTC hour, ISO 8601' }, ...row };
  return {
    type: 'object',
    required: ['since', 'hours'],
    properties: {
      since: { type: 'string', description: 'the start used, ISO 8601 in UTC' },
      hours: { type: 'array', items: { type: 'object', required: Object.keys(properties), properties } },
    },
  };
}

/** Runs per UTC hour and status (GET /runs/hourly, the overview). */
export const runsHourlySchema = hourlySchema({ status: { type: 'string' }, runs: { type: 'integer' } });

/** Spend per UTC hour, provider and model (GET /costs/hourly, the overview). */
export const spendHourlySchema = hourlySchema({ provider: { type: 'string' }, model: { type: 'string' }, calls: { type: 'integer' }, cost_usd: { type: 'number' } });

/** A run, as the runs resource and the overview list it (docs/resources.md#runs). */
export const runSchema = {
  type: 'object',
  required: [
    'run_id', 'session_id', 'message', 'status', 'provider', 'resolved_provider', 'created_at', 'started_at',
    'finished_at', 'response', 'error', 'tools_used', 'cost', 'source', 'job_id', 'model', 'first_token_at',
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
    model: { ...nullableString, description: 'the model that answered the run\'s last provider call, as the provider reported it; stored with the run\'s end (null before, except on the replica executing it)' },
    first_token_at: { ...nullableString, description: 'ISO 8601: when the provider\'s first answer came; stored with the run\'s end (null before, except on the replica executing it)' },
  },
} as const;

/** What GET /status answers; the overview carries it too (docs/resources.md#overview). */
export const statusSchema = {
  type: 'object',
  required: ['version', 'uptime_s', 'providers_available', 'default_provider', 'tool_count', 'session_count', 'memory', 'webhook_queue_depth'],
  properties: {
    version: { type: 'string' },
    uptime_s: { type: 'number' },
    providers_available: { type: 'array', items: { type: 'string' } },
    default_provider: { type: 'string' },
    tool_count: { type: 'integer' },
    session_count: { type: 'integer' },
    memory: {
      type: 'object',
      required: ['present', 'turn_count'],
      properties: { present: { type: 'boolean' }, turn_count: { type: 'integer' } },
    },
    webhook_queue_depth: { type: ['integer', 'null'], description: 'accepted webhook messages waiting for their run; null when the webhook channel is off' },
  },
} as const;
