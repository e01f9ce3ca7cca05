import { scopeToken } from '../ports/turn-query.js';
import type { NewTurn, SearchOptions, SearchResult, Turn, TurnStore } from '../ports/turns.js';
import type { Database } from './database.js';
import { RunTextEraser } from './run-text-eraser.js';
import { removeInSlices } from '../shared/slices.js';
import { readVarints } from './turn-ranking.js';
import { DEFAULT_SEARCH_TUNING, TURN_COLUMNS, TurnSearch, type SearchTuning, type TurnRow } from './turn-search.js';
import { turnFields } from '../shared/turn-input.js';
import type { SqliteUnitOfWork } from './unit-of-work.js';

const DAY_MS = 86_400_000;

export interface SqliteTurnStoreOptions {
  /** Clock for default timestamps and age cleanup (tests). */
  now?: () => number;
  /** Search knobs (benchmarks and tests). */
  search?: Partial<SearchTuning>;
  /** Most rows one cleanup transaction removes (tests). */
  cleanupBatch?: number;
  /** Time budget of one cleanup transaction (tests). */
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
 * values (which a contentless table needs); pinning touches only `turns`. Writes go through the
 * unit of work; the FTS5 shadow tables are read only here and in `TurnSearch`.
 */
export class SqliteTurnStore implements TurnStore {
  private readonly now: () => number;
  private readonly searcher: TurnSearch;
  private readonly eraser: RunTextEraser;
  private readonly stmt;

  constructor(
    private readonly database: Database,
    private readonly uow: SqliteUnitOfWork,
    private readonly options: SqliteTurnStoreOptions = {},
  ) {
    const db = database.db;
    this.now = options.now ?? Date.now;
    this.searcher = new TurnSearch(db, { ...DEFAULT_SEARCH_TUNING, ...options.search });
    this.eraser = new RunTextEraser(db);
    this.stmt = {
      insert: db.prepare(`INSERT INTO turns (id, session_id, role, content, provider, timestamp, pinned, run_id)
        VALUES (@id, @session_id, @role, @content, @provider, @timestamp, 0, @run_id)`),
      indexInsert: db.prepare('INSERT INTO turns_fts (rowid, body, scope) VALUES (?, ?, ?)'),
      indexDelete: db.prepare(`INSERT INTO turns_fts (turns_fts, rowid, body, scope) VALUES ('delete', ?, ?, ?)`),
      get: db.prepare(`SELECT ${TURN_COLUMNS} FROM turns t WHERE t.id = ?`),
      indexed: db.prepare('SELECT seq, session_id, content, run_id FROM turns WHERE id = ?'),
      history: db.prepare(`SELECT * FROM (
          SELECT ${TURN_COLUMNS} FROM turns t WHERE t.session_id = ? ORDER BY t.seq DESC LIMIT ?
        ) ORDER BY seq ASC`),
      setPinned: db.prepare('UPDATE turns SET pinned = ? WHERE id = ?'),
      deleteRow: db.prepare('DELETE FROM turns WHERE seq = ?'),
      averages: db.prepare('SELECT block FROM turns_fts_data WHERE id = 1'),
      oldBatch: db.prepare(`SELECT seq, session_id, content FROM turns
        WHERE pinned = 0 AND timestamp < ? ORDER BY timestamp LIMIT ?`),
    };
  }

  /** The API sessions of this backend are in memory (`InMemorySessionStore`), not in this database. */
  readonly sessionsWithTurns = false;

  async addMany(turns: readonly NewTurn[]): Promise<Turn[]> {
    const rows = turns.map((turn) => this.newRow(turn));
    await this.uow.run(() => {
      for (const row of rows) {
        row.seq = Number(this.stmt.insert.run(row).lastInsertRowid);
        this.stmt.indexInsert.run(row.seq, row.content, scopeToken(row.session_id));
      }
    });
    return rows.map(toTurn);
  }

  async get(id: string): Promise<Turn | null> {
    const row = this.stmt.get.get(id) as TurnRow | undefined;
    return row ? toTurn(row) : null;
  }

  async history(sessionId: string, limit: number): Promise<Turn[]> {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError('limit must be a positive integer');
    return (this.stmt.history.all(sessionId, limit) as TurnRow[]).map(toTurn);
  }

  async search(query: string, options: SearchOptions): Promise<SearchResult[]> {
    return this.searcher.search(query, options);
  }

  async setPinned(id: string, pinned: boolean): Promise<Turn | null> {
    return this.uow.run(() => {
      this.stmt.setPinned.run(pinned ? 1 : 0, id);
      const row = this.stmt.get.get(id) as TurnRow | undefined;
      return row ? toTurn(row) : null;
    });
  }

  async delete(id: string): Promise<Turn | null> {
    const deleted = await this.uow.run(() => {
      const row = this.stmt.get.get(id) as TurnRow | undefined;
      const indexed = this.stmt.indexed.get(id) as (IndexedRow & { run_id: string | null }) | undefined;
      if (!row || !indexed) return null;
      this.remove(indexed);
      if (indexed.run_id !== null) this.eraser.erase(indexed.run_id, indexed.content);
      return toTurn(row);
    });
    // Secure delete zeroes the freed cells in the file, but the committed pages that still held the
    // text stay in the WAL until it is reset.
    if (deleted) this.database.eraseWal();
    return deleted;
  }

  /**
   * The index keeps a row count in its averages record, and every turn has exactly one index row,
   * so this is exact and O(1); `count(*)` walks a whole b-tree (~35 ms for a million turns), too
   * slow for a status endpoint the console polls.
   */
  async count(): Promise<number> {
    const averages = this.stmt.averages.get() as { block: Buffer } | undefined;
    return averages ? (readVarints(averages.block)[0] ?? 0) : 0;
  }

  async cleanupOlderThan(days: number, options: { signal?: AbortSignal } = {}): Promise<number> {
    if (!(days > 0)) throw new RangeError('days must be a positive number');
    const cutoff = new Date(this.now() - days * DAY_MS).toISOString();
    const removed = await removeInSlices(
      (limit) => this.database.transaction(() => {
        const batch = this.stmt.oldBatch.all(cutoff, limit) as IndexedRow[];
        for (const row of batch) this.remove(row);
        return batch.length;
      }),
      {
        maxBatch: this.options.cleanupBatch, sliceMs: this.options.cleanupSliceMs, signal: options.signal,
        isOpen: () => this.database.open,
      },
    );
    if (removed > 0 && this.database.open) this.database.eraseWal();
    return removed;
  }

  private remove(row: IndexedRow): void {
    this.stmt.indexDelete.run(row.seq, row.content, scopeToken(row.session_id));
    this.stmt.deleteRow.run(row.seq);
  }

  private newRow(turn: NewTurn): TurnRow & { run_id: string | null } {
    return { seq: 0, ...turnFields(turn, this.now), pinned: 0 };
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
