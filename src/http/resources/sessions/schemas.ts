/** JSON schemas of the sessions resource. */
import { nullableString, timestamp } from '../schemas.js';

export const MAX_SESSION_NAME_CHARS = 200;

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
