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

/** Conversation memory. Implemented on SQLite + FTS5 (`SqliteTurnStore`). */
export interface TurnStore {
  add(turn: NewTurn): Turn;
  get(id: string): Turn | null;
  history(sessionId: string, limit: number): Turn[];
  search(query: string, options: { limit: number; sessionId?: string }): SearchResult[];
  setPinned(id: string, pinned: boolean): Turn | null;
  delete(id: string): boolean;
  count(): number;
  /** Delete unpinned turns of the given (ended) sessions; returns how many went. */
  cleanupSessions(sessionIds: string[]): number;
  /** Delete unpinned turns older than `days`; batched so requests are not blocked; returns how many went. */
  cleanupOlderThan(days: number): Promise<number>;
}
