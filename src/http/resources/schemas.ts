/** JSON schemas several resources share: ids, the turn a chat or run is asked, what a control answers. */
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
