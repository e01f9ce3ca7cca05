import type BetterSqlite3 from 'better-sqlite3';
import { newId } from '../security/tokens.js';
import type { Database } from '../storage/database.js';
import { excerpt } from './preview.js';
import { matchExpression, queryWords } from './query.js';
import type { NewTurn, SearchOptions, SearchResult, Turn, TurnRole, TurnStore } from './types.js';

const ROLES: ReadonlySet<string> = new Set<TurnRole>(['user', 'assistant', 'system', 'tool']);
const MAX_SESSION_ID_CHARS = 256;
const DAY_MS = 86_400_000;

/**
 * Ranking looks at the newest matches only, at most this many. bm25 has to be computed for every
 * row it orders, so ranking all 500,000 matches of a very common word would take hundreds of
 * milliseconds; the bounded set keeps the worst query in the tens of milliseconds (see
 * bench/memory.ts) and every rarer word is ranked over all its matches. bm25 itself still uses
 * statistics of the whole index.
 */
export const SEARCH_CANDIDATES = 2_000;

/** Rows per cleanup transaction: small enough that one batch holds the writer for a few ms. */
export const CLEANUP_BATCH = 1_000;

interface TurnRow {
  seq: number;
  id: string;
  session_id: string;
  role: TurnRole;
  content: string;
  provider: string | null;
  timestamp: string;
  pinned: number;
}

interface SearchRow extends TurnRow {
  score: number;
}

export interface SqliteTurnStoreOptions {
  /** Clock for default timestamps and age cleanup (tests). */
  now?: () => number;
  /** Override of SEARCH_CANDIDATES (benchmarks). */
  searchCandidates?: number;
  /** Override of CLEANUP_BATCH (tests). */
  cleanupBatch?: number;
}

const TURN_COLUMNS = 't.seq, t.id, t.session_id, t.role, t.content, t.provider, t.timestamp, t.pinned';

/**
 * The SQL of a search: the newest `candidates` matches are scored (-bm25, higher is better; the
 * scope column has weight 0 so it never changes a score), the best `limit` of them are joined to
 * their turns. Exported so the benchmark runs exactly this query directly.
 */
export const SEARCH_SQL = `
  WITH candidates AS (
    SELECT rowid AS seq, -bm25(turns_fts, 1.0, 0.0) AS score
    FROM turns_fts WHERE turns_fts MATCH @match
    ORDER BY rowid DESC LIMIT @candidates
  ), best AS (
    SELECT seq, score FROM candidates ORDER BY score DESC, seq DESC LIMIT @limit
  )
  SELECT ${TURN_COLUMNS}, best.score AS score
  FROM best JOIN turns t ON t.seq = best.seq
  WHERE @session_id IS NULL OR t.session_id = @session_id
  ORDER BY best.score DESC, best.seq DESC`;

/** Conversation memory on the service's SQLite file, with an FTS5 index kept in step by triggers. */
export class SqliteTurnStore implements TurnStore {
  private readonly db: BetterSqlite3.Database;
  private readonly now: () => number;
  private readonly searchCandidates: number;
  private readonly cleanupBatch: number;
  private readonly stmt;

  constructor(private readonly database: Database, options: SqliteTurnStoreOptions = {}) {
    this.db = database.db;
    this.now = options.now ?? Date.now;
    this.searchCandidates = options.searchCandidates ?? SEARCH_CANDIDATES;
    this.cleanupBatch = options.cleanupBatch ?? CLEANUP_BATCH;
    const db = this.db;
    this.stmt = {
      insert: db.prepare(`INSERT INTO turns (id, session_id, role, content, provider, timestamp, pinned)
        VALUES (@id, @session_id, @role, @content, @provider, @timestamp, @pinned)`),
      update: db.prepare(`UPDATE turns SET session_id = @session_id, role = @role, content = @content,
        provider = @provider, timestamp = @timestamp WHERE id = @id`),
      get: db.prepare(`SELECT ${TURN_COLUMNS} FROM turns t WHERE t.id = ?`),
      history: db.prepare(`SELECT * FROM (
          SELECT ${TURN_COLUMNS} FROM turns t WHERE t.session_id = ? ORDER BY t.seq DESC LIMIT ?
        ) ORDER BY seq ASC`),
      search: db.prepare(SEARCH_SQL),
      setPinned: db.prepare('UPDATE turns SET pinned = ? WHERE id = ?'),
      delete: db.prepare('DELETE FROM turns WHERE id = ?'),
      count: db.prepare('SELECT count(*) AS n FROM turns'),
      deleteSessionBatch: db.prepare(`DELETE FROM turns WHERE seq IN (
          SELECT seq FROM turns WHERE session_id = ? AND pinned = 0 LIMIT ?)`),
      deleteOldBatch: db.prepare(`DELETE FROM turns WHERE seq IN (
          SELECT seq FROM turns WHERE pinned = 0 AND timestamp < ? ORDER BY timestamp LIMIT ?)`),
    };
  }

  add(turn: NewTurn): Turn {
    const row = this.newRow(turn, newId('turn'));
    this.stmt.insert.run(row);
    return toTurn(row);
  }

  /** Store many turns in one transaction (all or none). */
  addMany(turns: readonly NewTurn[]): Turn[] {
    const rows = turns.map((turn) => this.newRow(turn, newId('turn')));
    this.database.transaction(() => {
      for (const row of rows) this.stmt.insert.run(row);
    });
    return rows.map(toTurn);
  }

  /**
   * Insert the turn with this id, or replace its session, role, content, provider and timestamp
   * (the pinned state is kept). An UPDATE, never a delete-and-insert, so the index row is replaced
   * by the trigger in the same statement and no orphan can remain.
   */
  upsert(turn: NewTurn & { id: string }): Turn {
    const row = this.newRow(turn, turn.id);
    return this.database.transaction(() => {
      if (this.stmt.update.run(row).changes === 0) this.stmt.insert.run(row);
      const stored = this.get(turn.id);
      if (!stored) throw new Error('upserted turn vanished');
      return stored;
    });
  }

  get(id: string): Turn | null {
    const row = this.stmt.get.get(id) as TurnRow | undefined;
    return row ? toTurn(row) : null;
  }

  history(sessionId: string, limit: number): Turn[] {
    return (this.stmt.history.all(sessionId, positiveInt(limit, 'limit')) as TurnRow[]).map(toTurn);
  }

  search(query: string, options: SearchOptions): SearchResult[] {
    const words = queryWords(query);
    const match = matchExpression(words, options.sessionId);
    if (match === null) return [];
    const rows = this.stmt.search.all({
      match,
      candidates: this.searchCandidates,
      limit: positiveInt(options.limit, 'limit'),
      session_id: options.sessionId ?? null,
    }) as SearchRow[];
    return rows.map((row) => ({
      id: row.id,
      session_id: row.session_id,
      role: row.role,
      provider: row.provider,
      timestamp: row.timestamp,
      pinned: row.pinned === 1,
      preview: excerpt(row.content, words),
      score: row.score,
    }));
  }

  setPinned(id: string, pinned: boolean): Turn | null {
    this.stmt.setPinned.run(pinned ? 1 : 0, id);
    return this.get(id);
  }

  delete(id: string): boolean {
    return this.stmt.delete.run(id).changes > 0;
  }

  count(): number {
    return (this.stmt.count.get() as { n: number }).n;
  }

  async cleanupSessions(sessionIds: readonly string[], options: { signal?: AbortSignal } = {}): Promise<number> {
    let removed = 0;
    for (const sessionId of new Set(sessionIds)) {
      removed += await this.inBatches((batch) => this.stmt.deleteSessionBatch.run(sessionId, batch).changes, options.signal);
    }
    return removed;
  }

  async cleanupOlderThan(days: number, options: { signal?: AbortSignal } = {}): Promise<number> {
    if (!(days > 0)) throw new RangeError('days must be a positive number');
    const cutoff = new Date(this.now() - days * DAY_MS).toISOString();
    return this.inBatches((batch) => this.stmt.deleteOldBatch.run(cutoff, batch).changes, options.signal);
  }

  /**
   * Run `step` (one batch, one transaction) until it removes less than a full batch, yielding to
   * the event loop between batches so requests are served while a large cleanup runs.
   */
  private async inBatches(step: (batch: number) => number, signal?: AbortSignal): Promise<number> {
    let removed = 0;
    for (;;) {
      if (signal?.aborted || !this.db.open) return removed;
      const changes = this.database.transaction(() => step(this.cleanupBatch));
      removed += changes;
      if (changes < this.cleanupBatch) return removed;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  private newRow(turn: NewTurn, id: string): TurnRow & { pinned: number } {
    if (typeof turn.session_id !== 'string' || turn.session_id === '' || turn.session_id.length > MAX_SESSION_ID_CHARS) {
      throw new TypeError(`session_id must be a non-empty string of at most ${MAX_SESSION_ID_CHARS} characters`);
    }
    if (!ROLES.has(turn.role)) throw new TypeError(`role must be one of ${[...ROLES].join(', ')}`);
    if (typeof turn.content !== 'string') throw new TypeError('content must be a string');
    if (turn.provider !== null && typeof turn.provider !== 'string') throw new TypeError('provider must be a string or null');
    return {
      seq: 0,
      id,
      session_id: turn.session_id,
      role: turn.role,
      content: turn.content,
      provider: turn.provider,
      timestamp: normaliseTimestamp(turn.timestamp, this.now),
      pinned: 0,
    };
  }
}

function toTurn(row: TurnRow): Turn {
  return {
    id: row.id,
    session_id: row.session_id,
    role: row.role,
    content: row.content,
    provider: row.provider,
    timestamp: row.timestamp,
    pinned: row.pinned === 1,
  };
}

/**
 * Stored timestamps are all `toISOString()` output, so text order is time order and the age
 * cleanup can compare strings on an index.
 */
function normaliseTimestamp(value: string | undefined, now: () => number): string {
  if (value === undefined) return new Date(now()).toISOString();
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new TypeError('timestamp must be an ISO 8601 date-time');
  return new Date(ms).toISOString();
}

function positiveInt(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer`);
  return value;
}
