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
