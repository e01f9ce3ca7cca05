export type TurnRole = 'user' | 'assistant' | 'system' | 'tool';

/** One stored conversation turn (docs/resources.md#turns-and-memory). */
export interface Turn {
  id: string;
  session_id: string;
  role: TurnRole;
  content: string;
  provider: string | null;
  /** ISO 8601 UTC with milliseconds. */
  timestamp: string;
  pinned: boolean;
}

export interface SearchResult {
  id: string;
  session_id: string;
  role: TurnRole;
  provider: string | null;
  timestamp: string;
  pinned: boolean;
  /** The whole text of the turn. */
  content: string;
  /** Excerpt around the first match, at most 200 characters. */
  preview: string;
  /** Relevance, higher is better. */
  score: number;
}

export interface NewTurn {
  session_id: string;
  role: TurnRole;
  content: string;
  provider: string | null;
  /** The run that stored the turn (not part of the API resource; lets a delete reach the run's copies). */
  run_id?: string | null;
  /** Defaults to now. */
  timestamp?: string;
}

export interface SearchOptions {
  /** How many results at most (a positive integer). */
  limit: number;
  /** Only turns of this session. */
  sessionId?: string;
}

/**
 * Conversation memory. Every backend implements it and passes `describeTurnStore` (the contract
 * suite); a write's promise settles once it has been committed.
 */
export interface TurnStore {
  /**
   * Store turns in one transaction (e.g. a user turn and its answer): all or none. With
   * `countOnSession` on a store that keeps the API sessions too (`sessionsWithTurns`), each API
   * session's turn count grows by its turns in the same commit (what `SessionStore.addTurns` does).
   */
  addMany(turns: readonly NewTurn[], options?: { countOnSession?: boolean }): Promise<Turn[]>;
  /** True when the API sessions live in the same database as the turns (a shared backend). */
  readonly sessionsWithTurns: boolean;
  get(id: string): Promise<Turn | null>;
  /** The most recent `limit` turns of a session, oldest first. */
  history(sessionId: string, limit: number): Promise<Turn[]>;
  /**
   * Full-text search: every word of `query` required, any order, best first. Query text is never
   * the backend's query syntax; a query without words gives no results.
   */
  search(query: string, options: SearchOptions): Promise<SearchResult[]>;
  /** The updated turn, or null when the id is unknown. */
  setPinned(id: string, pinned: boolean): Promise<Turn | null>;
  /**
   * Remove the turn and its index entry, and erase its text wherever the store kept a copy (the
   * response and event log of the run that stored it) and from the files behind the store. The
   * deleted turn, or null when the id is unknown.
   */
  delete(id: string): Promise<Turn | null>;
  count(): Promise<number>;
  /** Delete unpinned turns older than `days`, in slices that never block requests; returns how many went. */
  cleanupOlderThan(days: number, options?: { signal?: AbortSignal }): Promise<number>;
}
