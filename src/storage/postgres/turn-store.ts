import { excerpt } from '../ports/turn-preview.js';
import { foldedWords, foldWord, MAX_QUERY_WORDS, queryWords } from '../ports/turn-query.js';
import type { NewTurn, SearchOptions, SearchResult, Turn, TurnStore } from '../ports/turns.js';
import { ERASED_TEXT, eraseFromEvent, jsonFragment } from '../shared/erased-text.js';
import { removeInSlices } from '../shared/slices.js';
import { turnFields, type TurnFields } from '../shared/turn-input.js';
import type { PgDatabase, Queryable } from './database.js';
import { WriteQueue } from './write-queue.js';

const DAY_MS = 86_400_000;
const TURN_COLUMNS = 'id, session_id, role, content, provider, timestamp, pinned';

/**
 * Many turns in one statement: one array per column, unnested in order (`seq` follows that order);
 * with $9, each API session's turn count grows by its turns (an ended session has no row: a no-op).
 */
const INSERT_MANY = `WITH counted AS (
    UPDATE api_sessions s SET turn_count = s.turn_count + added.n
    FROM (SELECT session_id, count(*) AS n FROM unnest($2::text[]) AS session_id GROUP BY session_id) added
    WHERE $9::boolean AND s.id = added.session_id)
  INSERT INTO turns (id, session_id, role, content, provider, timestamp, run_id, body)
  SELECT id, session_id, role, content, provider, timestamp, run_id, to_tsvector('simple', words)
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
    WITH ORDINALITY AS t(id, session_id, role, content, provider, timestamp, run_id, words, n) ORDER BY n`;

/**
 * Turns in one statement (a user turn and its answer: one round trip), on `db` (in a transaction:
 * as part of its commit); with `countOnSession` each API session's turn count grows by its turns.
 */
export async function insertTurns(db: Queryable, rows: readonly TurnFields[], countOnSession: boolean): Promise<void> {
  const columns = [rows.map((r) => r.id), rows.map((r) => r.session_id), rows.map((r) => r.role), rows.map((r) => r.content),
    rows.map((r) => r.provider), rows.map((r) => r.timestamp), rows.map((r) => r.run_id), rows.map((r) => foldedWords(r.content))];
  await db.query(INSERT_MANY, [...columns, countOnSession]);
}

/** The session's last `limit` turns, oldest first (`TurnStore.history`), on `db` (in a transaction: in its commit). */
export async function readHistory(db: Queryable, sessionId: string, limit: number): Promise<Turn[]> {
  const { rows } = await db.query<TurnRow>(`SELECT ${TURN_COLUMNS} FROM (
      SELECT seq, ${TURN_COLUMNS} FROM turns WHERE session_id = $1 ORDER BY seq DESC LIMIT $2
    ) recent ORDER BY seq`, [sessionId, limit]);
  return rows.map(toTurn);
}

/** A row of `turns` as read back: the turn's own fields (the search vector and run id stay in the table). */
type TurnRow = Turn;

const toTurn = (row: TurnRow): Turn => ({
  id: row.id, session_id: row.session_id, role: row.role, content: row.content, provider: row.provider, timestamp: row.timestamp, pinned: row.pinned,
});

/**
 * Conversation memory on PostgreSQL. Search is PostgreSQL full-text search over `body`, the
 * tsvector of the turn's words as `memory/query.ts` cuts and folds them; the query is built from
 * the same folded words with `plainto_tsquery`, which reads plain words only, so no query syntax
 * (quotes, `&`, `|`, `!`, `:*`) ever reaches the parser. Ranking is `ts_rank` with length
 * normalisation, not SQLite's bm25 (README, "Scaling out").
 */
export class PgTurnStore implements TurnStore {
  private readonly writes = new WriteQueue();
  private readonly now: () => number;

  constructor(private readonly db: PgDatabase, options: { now?: () => number } = {}) {
    this.now = options.now ?? Date.now;
  }

  /** `api_sessions` is in this database (`PgSessionStore`). */
  readonly sessionsWithTurns = true;

  async addMany(turns: readonly NewTurn[], options: { countOnSession?: boolean } = {}): Promise<Turn[]> {
    const rows = turns.map((turn) => turnFields(turn, this.now));
    if (rows.length === 0) return [];
    // Keyed by the session: its turns are numbered (history, search order) in the order they were added.
    await this.writes.run(rows[0]!.session_id, () => insertTurns(this.db, rows, options.countOnSession ?? false));
    return rows.map(({ run_id: _run, ...row }) => ({ ...row, pinned: false }));
  }

  async get(id: string): Promise<Turn | null> {
    const { rows } = await this.db.query<TurnRow>(`SELECT ${TURN_COLUMNS} FROM turns WHERE id = $1`, [id]);
    return rows[0] ? toTurn(rows[0]) : null;
  }

  async history(sessionId: string, limit: number): Promise<Turn[]> {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError('limit must be a positive integer');
    return readHistory(this.db, sessionId, limit);
  }

  async search(query: string, options: SearchOptions): Promise<SearchResult[]> {
    if (!Number.isInteger(options.limit) || options.limit < 1) throw new RangeError('limit must be a positive integer');
    const words = queryWords(query);
    if (words.length > MAX_QUERY_WORDS) throw new RangeError(`query has more than ${MAX_QUERY_WORDS} distinct words`);
    if (words.length === 0) return [];
    const { rows } = await this.db.query<TurnRow & { score: number }>(`
      SELECT ${TURN_COLUMNS}, ts_rank(body, q, 1) AS score
      FROM turns, plainto_tsquery('simple', $1) AS q
      WHERE body @@ q AND ($2::text IS NULL OR session_id = $2)
      ORDER BY score DESC, seq DESC LIMIT $3`, [words.map(foldWord).join(' '), options.sessionId ?? null, options.limit]);
    return rows.map((row) => ({ ...toTurn(row), preview: excerpt(row.content, words), score: row.score }));
  }

  async setPinned(id: string, pinned: boolean): Promise<Turn | null> {
    const { rows } = await this.writes.run(id, () =>
      this.db.query<TurnRow>(`UPDATE turns SET pinned = $2 WHERE id = $1 RETURNING ${TURN_COLUMNS}`, [id, pinned]));
    return rows[0] ? toTurn(rows[0]) : null;
  }

  /**
   * Deletes the row (its index entry goes with it) and erases its run's copies, in one transaction.
   * PostgreSQL keeps the old row version until VACUUM reclaims it (autovacuum, or the next
   * `VACUUM turns`): the text is unreachable at once but leaves the data files only then.
   */
  delete(id: string): Promise<Turn | null> {
    return this.writes.run(id, () => this.db.transaction(async (tx) => {
      const { rows } = await tx.query<TurnRow & { run_id: string | null }>(
        `DELETE FROM turns WHERE id = $1 RETURNING ${TURN_COLUMNS}, run_id`, [id]);
      const row = rows[0];
      if (!row) return null;
      if (row.run_id !== null) await eraseRunCopies(tx, row.run_id, row.content);
      return toTurn(row);
    }));
  }

  async count(): Promise<number> {
    return (await this.db.query<{ n: number }>('SELECT count(*) AS n FROM turns')).rows[0]!.n;
  }

  async cleanupOlderThan(days: number, options: { signal?: AbortSignal } = {}): Promise<number> {
    if (!(days > 0)) throw new RangeError('days must be a positive number');
    const cutoff = new Date(this.now() - days * DAY_MS).toISOString();
    return removeInSlices(
      async (limit) => (await this.db.query(`DELETE FROM turns WHERE seq IN (
          SELECT seq FROM turns WHERE NOT pinned AND timestamp < $1 ORDER BY timestamp LIMIT $2)`, [cutoff, limit])).rowCount ?? 0,
      { signal: options.signal, isOpen: () => this.db.open },
    );
  }

  /** Resolves once the writes queued so far have settled (the storage is closing). */
  drain(): Promise<void> {
    return this.writes.drain();
  }
}

/** The deleted turn's text in its run: the run's message or response, and every event string equal to it. */
async function eraseRunCopies(tx: Queryable, runId: string, text: string): Promise<void> {
  if (text === '') return;
  await tx.query('UPDATE runs SET response = $1 WHERE id = $2 AND response = $3', [ERASED_TEXT, runId, text]);
  await tx.query('UPDATE runs SET message = $1 WHERE id = $2 AND message = $3', [ERASED_TEXT, runId, text]);
  const { rows } = await tx.query<{ id: number; data: string }>(
    'SELECT id, data FROM run_events WHERE run_id = $1 AND strpos(data, $2) > 0', [runId, jsonFragment(text)]);
  for (const event of rows) {
    const rewritten = eraseFromEvent(event.data, text);
    if (rewritten !== null) await tx.query('UPDATE run_events SET data = $1 WHERE run_id = $2 AND id = $3', [rewritten, runId, event.id]);
  }
}
