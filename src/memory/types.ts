export type TurnRole = 'user' | 'assistant' | 'system' | 'tool';

/** One stored conversation turn (the spec's Turn resource). */
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
  /** Defaults to now. */
  timestamp?: string;
}

export interface SearchOptions {
  /** How many results at most (a positive integer). */
  limit: number;
  /** Only turns of this session. */
  sessionId?: string;
}

/** Conversation memory. Implemented on SQLite + FTS5 (`SqliteTurnStore`). */
export interface TurnStore {
  add(turn: NewTurn): Turn;
  /** Store several turns in one transaction (e.g. a user turn and its answer): all or none. */
  addMany(turns: readonly NewTurn[]): Turn[];
  /** Insert a turn with a caller-chosen id, or replace that turn's fields (pinned state kept). */
  upsert(turn: NewTurn & { id: string }): Turn;
  get(id: string): Turn | null;
  /** The most recent `limit` turns of a session, oldest first. */
  history(sessionId: string, limit: number): Turn[];
  /**
   * Full-text search: every word of `query` required, any order, best bm25 first. Query text is
   * never FTS5 syntax; a query without words gives no results.
   */
  search(query: string, options: SearchOptions): SearchResult[];
  /** The updated turn, or null when the id is unknown. */
  setPinned(id: string, pinned: boolean): Turn | null;
  /** Remove the turn and its index entry; false when the id is unknown. */
  delete(id: string): boolean;
  count(): number;
  /**
   * Delete unpinned turns of the given (ended) sessions; returns how many went. Batched like the
   * age cleanup, so ending a long-lived session never blocks requests.
   */
  cleanupSessions(sessionIds: readonly string[], options?: { signal?: AbortSignal }): Promise<number>;
  /** Delete unpinned turns older than `days`; batched so requests are not blocked; returns how many went. */
  cleanupOlderThan(days: number, options?: { signal?: AbortSignal }): Promise<number>;
}
