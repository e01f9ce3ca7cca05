import { performance } from 'node:perf_hooks';
import type BetterSqlite3 from 'better-sqlite3';
import { randomIdBytes } from '../security/tokens.js';
import type { Database } from '../storage/database.js';
import { scopeToken } from './query.js';
import { readVarints } from './ranking.js';
import { DEFAULT_SEARCH_TUNING, TURN_COLUMNS, TurnSearch, type SearchTuning, type TurnRow } from './search.js';
import type { NewTurn, SearchOptions, SearchResult, Turn, TurnRole, TurnStore } from './types.js';

const ROLES: ReadonlySet<string> = new Set<TurnRole>(['user', 'assistant', 'system', 'tool']);
const MAX_SESSION_ID_CHARS = 256;
const DAY_MS = 86_400_000;

/**
 * Cleanup deletes in transactions of at most `CLEANUP_BATCH` rows and yields to the event loop
 * between them. The row count alone would not bound the pause: a secure delete from a large index
 * costs up to a millisecond per turn, and FTS5 does that work when the transaction commits. So the
 * batch size adapts after each transaction to take about `CLEANUP_SLICE_MS`; index merges make
 * some commits take two to three times that, which still stays well under the 50 ms we allow.
 */
export const CLEANUP_BATCH = 1_000;
export const CLEANUP_SLICE_MS = 10;
const FIRST_CLEANUP_BATCH = 8;

export interface SqliteTurnStoreOptions {
  /** Clock for default timestamps and age cleanup (tests). */
  now?: () => number;
  /** Search knobs (benchmarks and tests). */
  search?: Partial<SearchTuning>;
  /** Override of CLEANUP_BATCH (tests). */
  cleanupBatch?: number;
  /** Override of CLEANUP_SLICE_MS (tests). */
  cleanupSliceMs?: number;
}

interface IndexedRow {
  seq: number;
  session_id: string;
  content: string;
}

/**
 * Conversation memory on the service's SQLite file. Every write that changes indexed text changes
 * the FTS5 row in the same transaction: insert adds it, delete removes it with the exact old
 * values (which a contentless table needs), an upsert does both; pinning touches only `turns`.
 */
export class SqliteTurnStore implements TurnStore {
  private readonly db: BetterSqlite3.Database;
  private readonly now: () => number;
  private readonly cleanupBatch: number;
  private readonly cleanupSliceMs: number;
  private readonly searcher: TurnSearch;
  private readonly stmt;

  constructor(private readonly database: Database, options: SqliteTurnStoreOptions = {}) {
    this.db = database.db;
    this.now = options.now ?? Date.now;
    this.cleanupBatch = options.cleanupBatch ?? CLEANUP_BATCH;
    this.cleanupSliceMs = options.cleanupSliceMs ?? CLEANUP_SLICE_MS;
    this.searcher = new TurnSearch(this.db, { ...DEFAULT_SEARCH_TUNING, ...options.search });
    const db = this.db;
    this.stmt = {
      insert: db.prepare(`INSERT INTO turns (id, session_id, role, content, provider, timestamp, pinned)
        VALUES (@id, @session_id, @role, @content, @provider, @timestamp, 0)`),
      indexInsert: db.prepare('INSERT INTO turns_fts (rowid, body, scope) VALUES (?, ?, ?)'),
      indexDelete: db.prepare(`INSERT INTO turns_fts (turns_fts, rowid, body, scope) VALUES ('delete', ?, ?, ?)`),
      update: db.prepare(`UPDATE turns SET session_id = @session_id, role = @role, content = @content,
        provider = @provider, timestamp = @timestamp WHERE seq = @seq`),
      get: db.prepare(`SELECT ${TURN_COLUMNS} FROM turns t WHERE t.id = ?`),
      indexed: db.prepare('SELECT seq, session_id, content FROM turns WHERE id = ?'),
      history: db.prepare(`SELECT * FROM (
          SELECT ${TURN_COLUMNS} FROM turns t WHERE t.session_id = ? ORDER BY t.seq DESC LIMIT ?
        ) ORDER BY seq ASC`),
      setPinned: db.prepare('UPDATE turns SET pinned = ? WHERE id = ?'),
      deleteRow: db.prepare('DELETE FROM turns WHERE seq = ?'),
      averages: db.prepare('SELECT block FROM turns_fts_data WHERE id = 1'),
      sessionBatch: db.prepare('SELECT seq, session_id, content FROM turns WHERE session_id = ? AND pinned = 0 LIMIT ?'),
      oldBatch: db.prepare(`SELECT seq, session_id, content FROM turns
        WHERE pinned = 0 AND timestamp < ? ORDER BY timestamp LIMIT ?`),
    };
  }

  add(turn: NewTurn): Turn {
    return this.addMany([turn])[0]!;
  }

  addMany(turns: readonly NewTurn[]): Turn[] {
    const rows = turns.map((turn) => this.newRow(turn, turnId()));
    this.database.transaction(() => {
      for (const row of rows) {
        row.seq = Number(this.stmt.insert.run(row).lastInsertRowid);
        this.stmt.indexInsert.run(row.seq, row.content, scopeToken(row.session_id));
      }
    });
    return rows.map(toTurn);
  }

  upsert(turn: NewTurn & { id: string }): Turn {
    const row = this.newRow(turn, turn.id);
    return this.database.transaction(() => {
      const old = this.stmt.indexed.get(turn.id) as IndexedRow | undefined;
      if (old) {
        this.unindex(old);
        this.stmt.update.run({ ...row, seq: old.seq });
        this.stmt.indexInsert.run(old.seq, row.content, scopeToken(row.session_id));
      } else {
        const seq = Number(this.stmt.insert.run(row).lastInsertRowid);
        this.stmt.indexInsert.run(seq, row.content, scopeToken(row.session_id));
      }
      return this.get(turn.id)!;
    });
  }

  get(id: string): Turn | null {
    const row = this.stmt.get.get(id) as TurnRow | undefined;
    return row ? toTurn(row) : null;
  }

  history(sessionId: string, limit: number): Turn[] {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError('limit must be a positive integer');
    return (this.stmt.history.all(sessionId, limit) as TurnRow[]).map(toTurn);
  }

  search(query: string, options: SearchOptions): SearchResult[] {
    return this.searcher.search(query, options);
  }

  setPinned(id: string, pinned: boolean): Turn | null {
    this.stmt.setPinned.run(pinned ? 1 : 0, id);
    return this.get(id);
  }

  delete(id: string): boolean {
    return this.database.transaction(() => {
      const row = this.stmt.indexed.get(id) as IndexedRow | undefined;
      if (!row) return false;
      this.remove(row);
      return true;
    });
  }

  /**
   * The index keeps a row count in its averages record, and every turn has exactly one index row,
   * so this is exact and O(1); `count(*)` walks a whole b-tree (~35 ms for a million turns), too
   * slow for a status endpoint the console polls.
   */
  count(): number {
    const averages = this.stmt.averages.get() as { block: Buffer } | undefined;
    return averages ? (readVarints(averages.block)[0] ?? 0) : 0;
  }

  async cleanupSessions(sessionIds: readonly string[], options: { signal?: AbortSignal } = {}): Promise<number> {
    let removed = 0;
    for (const sessionId of new Set(sessionIds)) {
      removed += await this.removeInSlices((limit) => this.stmt.sessionBatch.all(sessionId, limit) as IndexedRow[], options.signal);
    }
    return removed;
  }

  async cleanupOlderThan(days: number, options: { signal?: AbortSignal } = {}): Promise<number> {
    if (!(days > 0)) throw new RangeError('days must be a positive number');
    const cutoff = new Date(this.now() - days * DAY_MS).toISOString();
    return this.removeInSlices((limit) => this.stmt.oldBatch.all(cutoff, limit) as IndexedRow[], options.signal);
  }

  /**
   * Remove what `select(n)` yields (up to n rows), one transaction per call, yielding to the event
   * loop in between, until it yields less than asked. The next size is scaled by how long the last
   * transaction took, commit included, against the slice budget.
   */
  private async removeInSlices(select: (limit: number) => IndexedRow[], signal?: AbortSignal): Promise<number> {
    let removed = 0;
    let size = Math.min(FIRST_CLEANUP_BATCH, this.cleanupBatch);
    for (;;) {
      if (signal?.aborted || !this.db.open) return removed;
      const started = performance.now();
      const rows = this.database.transaction(() => {
        const batch = select(size);
        for (const row of batch) this.remove(row);
        return batch.length;
      });
      const elapsed = performance.now() - started;
      removed += rows;
      if (rows < size) return removed;
      const scaled = Math.floor(size * (this.cleanupSliceMs / Math.max(elapsed, 0.1)));
      size = Math.max(1, Math.min(this.cleanupBatch, scaled, size * 2));
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  private remove(row: IndexedRow): void {
    this.unindex(row);
    this.stmt.deleteRow.run(row.seq);
  }

  private unindex(row: IndexedRow): void {
    this.stmt.indexDelete.run(row.seq, row.content, scopeToken(row.session_id));
  }

  private newRow(turn: NewTurn, id: string): TurnRow {
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

/**
 * Turn ids start with the creation time, so new ids land at the end of the id index instead of at
 * random places in it (a third less CPU when loading a million turns); the random part keeps them
 * unguessable. Still opaque to clients.
 */
function turnId(): string {
  return `turn_${Date.now().toString(36).padStart(9, '0')}${randomIdBytes(12).toString('base64url')}`;
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
