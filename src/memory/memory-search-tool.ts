import type { ToolContext, ToolDefinition } from '../tools/types.js';
import { MAX_QUERY_WORDS, queryWords } from '../storage/ports/turn-query.js';

import type { SearchResult, TurnStore } from '../storage/ports/turns.js';

const DEFAULT_LIMIT = 5;
const MAX_LIMIT = 20;
const MAX_QUERY_CHARS = 1_000;

/** `tools.memory_search_scope`: what a channel's run may search. */
export type MemorySearchScope = 'session' | 'all';

export interface MemorySearchOptions {
  /** Default `session`: a channel's run searches only its own session. */
  channelScope?: MemorySearchScope;
}

/**
 * The agent's way into conversation memory. The answer is plain text the model can read: one line
 * per turn with its time, role, session and excerpt (never a whole turn, so a search cannot flood
 * the context window).
 *
 * A run on an API session may search every session (or, with `session_only`, its own). A channel's
 * run (a webhook sender's, a job's — any context not marked `api`) searches only its own session
 * unless the config says `all`: its prompt comes from whoever may post to the channel, and the
 * model's `session_only: false` is that prompt's to choose, so it never widens the search.
 */
export function createMemorySearchTool(store: TurnStore, options: MemorySearchOptions = {}): ToolDefinition {
  const channelScope = options.channelScope ?? 'session';
  return {
    name: 'memory_search',
    description:
      'Search stored conversation turns (all sessions, or only this one) by words. Every word must ' +
      'appear, in any order; results are the best matches first, each with an excerpt. Runs of a channel ' +
      '(webhook, scheduled job) search only their own session unless the operator allows more.',
    schema: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, maxLength: MAX_QUERY_CHARS, description: 'Words to look for.' },
        limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, description: `How many results (default ${DEFAULT_LIMIT}).` },
        session_only: { type: 'boolean', description: 'Only search the current session (default false; always true in a channel\'s run unless the operator allows more).' },
      },
      required: ['query'],
      additionalProperties: false,
    },
    async run(args: Record<string, unknown>, context: ToolContext): Promise<string> {
      const { query, limit, sessionOnly: asked } = parseArgs(args);
      const sessionOnly = asked || (context.origin !== 'api' && channelScope === 'session');
      const results = await store.search(query, { limit, sessionId: sessionOnly ? context.sessionId : undefined });
      const where = sessionOnly ? ' in this session' : '';
      if (results.length === 0) return `No stored turns match ${JSON.stringify(query)}${where}.`;
      const lines = results.map((result, index) => formatResult(result, index + 1));
      return [`${results.length} stored turn(s) match ${JSON.stringify(query)}${where}, best first:`, ...lines].join('\n');
    },
  };
}

function parseArgs(args: Record<string, unknown>): { query: string; limit: number; sessionOnly: boolean } {
  const { query, limit = DEFAULT_LIMIT, session_only: sessionOnly = false } = args;
  if (typeof query !== 'string' || query.trim() === '') throw new Error('query must be a non-empty string');
  if (query.length > MAX_QUERY_CHARS) throw new Error(`query must be at most ${MAX_QUERY_CHARS} characters`);
  if (queryWords(query).length > MAX_QUERY_WORDS) throw new Error(`query must have at most ${MAX_QUERY_WORDS} distinct words`);
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new Error(`limit must be an integer from 1 to ${MAX_LIMIT}`);
  }
  if (typeof sessionOnly !== 'boolean') throw new Error('session_only must be a boolean');
  return { query, limit, sessionOnly };
}

function formatResult(result: SearchResult, rank: number): string {
  const pin = result.pinned ? ', pinned' : '';
  return `${rank}. [${result.timestamp}] ${result.role} in session ${result.session_id} (turn ${result.id}${pin}): ${result.preview}`;
}
